// /admin/crm-config/teams (docs/specs.md#crm-configuration): the server-paged table (name, code,
// manager's full name or a dash, members, actions), 'Add New', the add / edit dialog (name,
// manager: a user with the Manager role, members: sales and retention agents, searchable) and
// 'Are you sure to delete this team?'. The code is the server's.
import { useMemo, useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import { getInputProps, getSelectProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { Field, SelectField } from '~/components/ui/fields.tsx';
import { ROLE_LABELS, type RoleId } from '~/modules/auth/permissions.ts';
import type { teamsLoader, TeamRow } from './teams.server.ts';
import { CRM_CONFIG_PARSE, TeamSchema } from './schemas.ts';
import { MemberPicker } from './member-picker.tsx';

type Editing = { row: TeamRow | null } | null;
/** members named in a row before '+N more' */
const SHOWN_MEMBERS = 4;

export function TeamsPage() {
  const { t } = useTranslation();
  const { rows, total, managers, agents } = useLoaderData<typeof teamsLoader>();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<TeamRow | null>(null);

  const columns = useMemo<ColumnDef<TeamRow>[]>(() => [
    { id: 'name', header: t('Name'), cell: ({ row }) => <strong>{row.original.name}</strong> },
    { id: 'code', header: t('Code'), cell: ({ row }) => <code>{row.original.code}</code> },
    { id: 'manager', header: t('Manager'), enableSorting: false, cell: ({ row }) => row.original.manager?.fullName ?? '-' },
    {
      id: 'members', header: t('Members'), enableSorting: false,
      cell: ({ row }) => {
        const m = row.original.members;
        if (!m.length) return <span className="muted">-</span>;
        const rest = m.length - SHOWN_MEMBERS;
        return (
          <span className="team-members">
            {m.slice(0, SHOWN_MEMBERS).map((u) => u.fullName).join(', ')}
            {rest > 0 ? <span className="muted"> {t('+{{count}} more', { count: rest })}</span> : null}
          </span>
        );
      },
    },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit {{name}}', { name: row.original.name })}
            onClick={() => setEditing({ row: row.original })}>{t('Edit')}</button>
          <button type="button" className="btn btn-sm btn-ghost btn-danger-text" aria-label={t('Delete {{name}}', { name: row.original.name })}
            onClick={() => setDeleting(row.original)}>{t('Delete')}</button>
        </div>
      ),
    },
  ], [t]);

  const row = editing?.row ?? null;
  const defaults = row ? { name: row.name, userId: row.manager ? String(row.manager.id) : '' } : { name: '', userId: '' };
  // an edited team's manager or members who are no longer offered (inactive) stay choosable
  const managerOptions = useMemo(() => {
    const list = managers.map((u) => ({ value: String(u.id), label: `${u.fullName} (${u.email})` }));
    if (row?.manager && !managers.some((u) => u.id === row.manager!.id)) list.unshift({ value: String(row.manager.id), label: row.manager.fullName });
    return list;
  }, [managers, row]);
  const memberOptions = useMemo(() => {
    const list = agents.map((u) => ({ id: u.id, label: u.fullName, detail: `${u.email} · ${t(ROLE_LABELS[u.roleId as RoleId])}` }));
    for (const m of row?.members ?? []) {
      if (!agents.some((u) => u.id === m.id)) list.push({ id: m.id, label: m.fullName, detail: `${m.email} · ${t(ROLE_LABELS[m.roleId as RoleId])}` });
    }
    return list;
  }, [agents, row, t]);

  return (
    <section className="page crm-config">
      <h1 className="page-title">{t('Teams')}</h1>
      <DataTable columns={columns} data={rows} total={total} getRowId={(r) => String(r.id)} caption={t('Teams')}
        toolbar={<button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ row: null })}>{t('Add New')}</button>} />

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={row?.id} intent="save" schema={TeamSchema} parse={CRM_CONFIG_PARSE}
        title={row ? t('Edit Team') : t('Add Team')} defaultValue={defaults} size="md">
        {(fields) => (
          <>
            {row ? <p className="muted">{t('Code')}: <code>{row.code}</code></p> : <p className="muted">{t('The team\'s code is generated when it is saved.')}</p>}
            <Field label={t('Name')} errors={fields.name.errors} inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }} />
            <SelectField label={t('Manager')} errors={fields.userId.errors} placeholder={t('Select manager')}
              selectProps={getSelectProps(fields.userId)} options={managerOptions} />
            <MemberPicker name={fields.userIds.name} label={t('Members')} options={memberOptions}
              defaultValue={row?.members.map((m) => m.id) ?? []} errors={fields.userIds.errors} />
          </>
        )}
      </FormDialog>

      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={deleting ? t('Delete {{name}}', { name: deleting.name }) : undefined}
        message={t('Are you sure to delete this team?')} />
    </section>
  );
}
