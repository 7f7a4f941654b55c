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

/** The link as the word History, or (icon) as a clock for a row of icon buttons. */
export function HistoryLink({ targetKind, targetId, label, icon = false, className = '' }: { targetKind: string; targetId: string | number; label: string; icon?: boolean; className?: string }) {
  const { t } = useTranslation();
  const allowed = useCanSeeAudit();
  if (!allowed) return null;
  return (
    <Link to={auditUrl(targetKind, targetId)} className={`btn btn-sm btn-ghost history-link ${className}`} aria-label={label} title={label}>
      {icon ? (
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <path d="M3 12a9 9 0 1 0 3-6.7L3 8M3 3v5h5M12 7v5l3 3" />
        </svg>
      ) : t('History')}
    </Link>
  );
}
