// 'History': a row's link to its audit trail (/admin/audit?targetKind=…&targetId=…), shown only to
// the roles the permission map lets open the audit page (the page checks again on the server).
import { Link, useRouteLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { accessFor } from '~/modules/auth/permissions.ts';

export const auditUrl = (targetKind: string, targetId: string | number) =>
  `/admin/audit?${new URLSearchParams({ targetKind, targetId: String(targetId) })}`;

/** Whether the signed-in staff member may open the audit trail (from the staff layout's data). */
export function useCanSeeAudit(): boolean {
  const shell = useRouteLoaderData('routes/_staff') as { user?: { roleId: number } } | undefined;
  return !!shell?.user && accessFor('/admin/audit', shell.user.roleId).allowed;
}

export function HistoryLink({ targetKind, targetId, label }: { targetKind: string; targetId: string | number; label: string }) {
  const { t } = useTranslation();
  const allowed = useCanSeeAudit();
  if (!allowed) return null;
  return (
    <Link to={auditUrl(targetKind, targetId)} className="btn btn-sm btn-ghost history-link" aria-label={label} title={label}>{t('History')}</Link>
  );
}
