// The lead table of the nine CRM screens (docs/specs.md#crm-lead-lists): every column (all sort on
// the server but actions), the toolbar (status, 'Registered At' range, agent filter, search, page size:
// all in the URL), row selection including 'all rows of the current filtered list', the screen's bulk
// moves and bulk assign-agent, and the row actions (edit, delete, notes, convert, View User).
import { useEffect, useMemo, useState } from 'react';
import { Link, useFetcher, useLoaderData, useLocation, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react';
import { DataTable, type ColumnDef, type Selection } from '~/components/ui/data-table.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { DateRangeDialog } from '~/components/ui/date-range-dialog.tsx';
import { Field, SelectField, SubmitButton, useSchemaForm, ErrorList } from '~/components/ui/fields.tsx';
import { useFetcherToast, useToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { useFormat } from '~/components/ui/format.ts';
import { ProgressBar } from '~/components/ui/progress-bar.tsx';
import { AddLeadSchema, ConvertLeadSchema, EditLeadSchema, NoteSchema } from './schemas.ts';
import { EXACT_COUNT_LIMIT, MASKED_SORTS, MAX_DEPTH, SCREENS, moveAllowed, moveLabel, type LeadGroup, type ScreenKey } from './screens.ts';
import type { LeadRow } from './leads.server.ts';
import type { LeadsLoader, NoteRow } from './route.server.ts';
import { ImportCsv } from './import-panel.tsx';
import { isAdmin, isAgent } from '~/shared/roles.ts';

type ListData = Extract<ReturnType<typeof useLoaderData<LeadsLoader>>, { kind: 'list' }>;

const NOTE_PREVIEW = 12;
/** The click-to-call resource route (modules/crm/voiso.server.ts): the lead's id goes, never its number. */
const CALL_ACTION = '/admin/crm/voiso/startCall';
const AGENT_STATUS: Record<string, string> = {
  available: 'Available', idle: 'Idle', logout: 'Logout', offline: 'Offline', inbound: 'Inbound', outbound: 'Outbound',
  'dialer waiting': 'Dialer waiting', unavailable: 'Unavailable',
};
/** docs/specs.md#crm-lead-lists: offline and unavailable danger; available success; inbound and outbound warning. */
function agentTone(status: string): string {
  const s = status.toLowerCase();
  if (s === 'available') return 'chip-approved';
  if (s === 'inbound' || s === 'outbound') return 'chip-pending';
  if (s === 'logout' || s === 'offline' || s.startsWith('unavailable')) return 'chip-declined';
  return '';
}
const GROUP_LABELS: Record<LeadGroup, string> = { sales: 'Sales', retentions: 'Retentions', archived: 'Archived' };

export function LeadTablePage() {
  const raw = useLoaderData<LeadsLoader>();
  if (raw.kind !== 'list') return null;
  return <LeadTable data={raw} />;
}

function LeadTable({ data }: { data: ListData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { push } = useToast();
  const screen = SCREENS[data.screen as ScreenKey];
  const title = t(screen.title);
  const agent = isAgent(data.roleId);
  const [selection, setSelection] = useState<Selection>({ all: false, ids: [] });
  const [editing, setEditing] = useState<LeadRow | null>(null);
  const [deleting, setDeleting] = useState<LeadRow | null>(null);
  const [converting, setConverting] = useState<LeadRow | null>(null);
  const [notesOf, setNotesOf] = useState<LeadRow | null>(null);
  const [adding, setAdding] = useState(false);
  const [calling, setCalling] = useState<LeadRow | null>(null);
  // an agent calls as themselves at once; admins and managers choose the agent (CallDialog)
  const callFetcher = useFetcher<Reply>();
  const callPending = callFetcher.state !== 'idle';
  useFetcherToast(callFetcher);
  const selected = selection.all ? data.total : selection.ids.length;
  const moves = screen.moves.filter((g) => moveAllowed(screen, g, data.roleId));
  const canAdd = data.manages && (screen.set === 'sales');

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      push({ type: 'success', title: 'Phone number copied to clipboard' });
    } catch {
      push({ type: 'error', title: 'Something went wrong' });
    }
  };

  const columns = useMemo<ColumnDef<LeadRow>[]>(() => {
    const date = (v: string | null) => (v ? f.dateTime(v) : '—');
    const dash = (v: string | null | undefined) => (v ? v : '—');
    const all: ColumnDef<LeadRow>[] = [
      { id: 'id', header: t('ID'), cell: ({ row: { original: o } }) => o.id },
      { id: 'firstName', header: t('First Name'), cell: ({ row: { original: o } }) => o.firstName },
      { id: 'lastName', header: t('Last Name'), cell: ({ row: { original: o } }) => o.lastName },
      { id: 'email', header: t('Email'), cell: ({ row: { original: o } }) => <span className="lead-email"><Contact row={o} field="email" canReveal={data.canReveal} /></span> },
      {
        id: 'phone', header: t('Phone'),
        cell: ({ row: { original: o } }) => (
          <span className="lead-phone">
            <Contact row={o} field="phone" canReveal={data.canReveal} />
            {o.phone ? (
              <>
                {screen.own ? null : <button type="button" className="btn btn-sm btn-ghost lead-icon" disabled={callPending || !!data.callBlocked}
                  aria-label={t('Call {{name}}', { name: `${o.firstName} ${o.lastName}`.trim() })}
                  aria-describedby={data.callBlocked ? 'crm-call-blocked' : undefined}
                  title={data.callBlocked ? t(data.callBlocked) : t('Call {{name}}', { name: `${o.firstName} ${o.lastName}`.trim() })}
                  onClick={() => (agent ? callFetcher.submit({ leadId: String(o.id) }, { method: 'post', action: CALL_ACTION }) : setCalling(o))}>
                  <svg viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2"><path d="M5 4h4l2 5-2.5 1.5a11 11 0 0 0 5 5L15 13l5 2v4a2 2 0 0 1-2 2A16 16 0 0 1 3 6a2 2 0 0 1 2-2" /></svg>
                </button>}
                {data.masked ? null : (
                  <button type="button" className="btn btn-sm btn-ghost lead-icon" aria-label={t('Copy phone number')} title={t('Copy phone number')} onClick={() => void copy(o.phone)}>
                    <svg viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2"><rect x="9" y="9" width="11" height="11" rx="2" /><path d="M5 15V5a2 2 0 0 1 2-2h10" /></svg>
                  </button>
                )}
              </>
            ) : null}
          </span>
        ),
      },
      {
        id: 'notes', header: t('Notes'),
        cell: ({ row: { original: o } }) => (
          <span className="lead-note">
            <span className={o.note ? '' : 'muted'}>{o.note ? ([...o.note].length > NOTE_PREVIEW ? `${[...o.note].slice(0, NOTE_PREVIEW).join('')}…` : o.note) : '—'}</span>
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setNotesOf(o)} aria-label={t('View notes of lead #{{id}}', { id: o.id })}>{t('View')}</button>
          </span>
        ),
      },
      { id: 'country', header: t('Country'), cell: ({ row: { original: o } }) => dash(o.country) },
      {
        id: 'status', header: t('Sale Status'),
        cell: ({ row: { original: o } }) => (
          <span className="chip lead-status" style={{ borderColor: o.statusColor ?? undefined }}>
            <span className="lead-status-dot" style={{ background: o.statusColor ?? 'var(--muted)' }} aria-hidden="true" />{o.status}
          </span>
        ),
      },
      {
        id: 'group', header: t('Group'),
        cell: ({ row: { original: o } }) => (
          <span className="lead-group">
            <span className={`chip lead-group-${o.group}`}>{t(GROUP_LABELS[o.group])}</span>
            {o.linkedName ? <span className="muted">{o.linkedName}</span> : null}
            {/* a converted lead's customer signs in once the address is verified (the mailed link does it) */}
            {o.linkedVerified === false ? <span className="chip chip-pending">{t('Email not verified')}</span> : null}
          </span>
        ),
      },
      { id: 'manager', header: t('Sale Manager'), cell: ({ row: { original: o } }) => dash(o.managerName) },
      { id: 'agent', header: t('Sale Agent'), cell: ({ row: { original: o } }) => dash(o.agentName) },
      { id: 'registeredAt', header: t('Registered At'), cell: ({ row: { original: o } }) => f.dateTime(o.registeredAt) },
      { id: 'city', header: t('City'), cell: ({ row: { original: o } }) => dash(o.city) },
      { id: 'retAgent', header: t('Retention Agent'), cell: ({ row: { original: o } }) => dash(o.retName) },
      { id: 'depositedAt', header: t('Deposited At'), cell: ({ row: { original: o } }) => date(o.depositedAt) },
      { id: 'lastAccess', header: t('Last Access'), cell: ({ row: { original: o } }) => date(o.lastAccess) },
      {
        id: 'funnelLink', header: t('Funnel Link'),
        cell: ({ row: { original: o } }) => (o.funnelLink ? <span className="lead-link" title={o.funnelLink}>{o.funnelLink}</span> : '—'),
      },
      { id: 'reference', header: t('Aff. Reference'), cell: ({ row: { original: o } }) => dash(o.reference) },
      { id: 'leadSourceId', header: t('Lead Source ID'), cell: ({ row: { original: o } }) => dash(o.leadSourceId) },
      { id: 'ftdAt', header: t('FTD At'), cell: ({ row: { original: o } }) => date(o.ftdAt) },
      { id: 'affiliator', header: t('Affiliator'), cell: ({ row: { original: o } }) => (o.affiliateId ? `${o.affiliateName ?? ''} (#${o.affiliateId})` : '—') },
      // last, and pinned to the table's right edge (app.css .crm-leads): reachable at any width without scrolling
      {
        id: 'actions', header: t('Actions'), enableSorting: false,
        cell: ({ row: { original: o } }) => (
          <div className="row-actions">
            {screen.own ? null : <button type="button" className="btn btn-sm btn-ghost" onClick={() => setEditing(o)} aria-label={t('Edit lead #{{id}}', { id: o.id })}>{t('Edit')}</button>}
            {data.manages || screen.own ? <button type="button" className="btn btn-sm btn-ghost" onClick={() => setDeleting(o)} aria-label={t('Delete lead #{{id}}', { id: o.id })}>{t('Delete')}</button> : null}
            {data.manages && o.linkedId === null ? <button type="button" className="btn btn-sm btn-ghost" onClick={() => setConverting(o)} aria-label={t('Convert lead #{{id}} to a user', { id: o.id })}>{t('Convert')}</button> : null}
            {screen.key === 'retention' && o.linkedId !== null ? <Link className="btn btn-sm btn-ghost" to={`/admin/customers/edit/${o.linkedId}`}>{t('View User')}</Link> : null}
          </div>
        ),
      },
    ];
    // a masked agent's masked columns do not sort: the order would tell what the mask hides
    if (data.masked) for (const c of all) if (MASKED_SORTS.includes(c.id as never)) c.enableSorting = false;
    // a screen that shows some columns (the affiliate's own list) keeps those and the actions
    const shown = screen.columns;
    return shown ? all.filter((c) => c.id === 'actions' || shown.includes(c.id as never)) : all;
  }, [t, f, data.masked, data.canReveal, data.manages, data.callBlocked, screen.key, agent, callPending]); // eslint-disable-line react-hooks/exhaustive-deps -- copy only pushes a toast

  return (
    <section className="page crm-leads">
      <h1 className="page-title">{title}</h1>
      <LeadFilters data={data} />
      {data.filterError ? <p className="field-error" role="alert">{t(data.filterError.message)}</p> : null}
      {screen.own ? null : <div className="crm-bulk card" role="group" aria-label={t('Bulk actions')}>
        <span className="muted crm-selected" aria-live="polite">{t('{{count}} selected', { count: f.amount(selected) as unknown as number })}</span>
        {moves.map((g) => <BulkMove key={g} screen={screen.key} target={g} selection={selection} count={selected} estimated={selection.all && data.estimated} />)}
        {data.manages ? <BulkAssign data={data} selection={selection} count={selected} estimated={selection.all && data.estimated} /> : null}
        {canAdd ? <button type="button" className="btn btn-primary btn-sm crm-add" onClick={() => setAdding(true)}>{t('Add Lead')}</button> : null}
        {canAdd ? <ImportCsv initial={data.lastImport ?? null} /> : null}
      </div>}
      {data.callBlocked ? (
        <p className="muted crm-note" id="crm-call-blocked">
          {t(data.callBlocked)}{isAdmin(data.roleId) ? <> <Link to="/admin/apis">{t('Open API Settings')}</Link></> : null}
        </p>
      ) : null}
      {data.estimated ? <p className="muted crm-note">{t('More than {{limit}} leads match: the total is an estimate.', { limit: f.amount(EXACT_COUNT_LIMIT) })}</p> : null}
      {data.bounded || data.total > MAX_DEPTH ? <p className="muted crm-note">{t('Pages reach the first {{limit}} leads of a list: reverse the sort or narrow the filter to reach the others.', { limit: f.amount(MAX_DEPTH) })}</p> : null}
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={title}
        selectable={!screen.own} onSelectionChange={setSelection} maxRows={MAX_DEPTH} />
      <EditLeadDialog row={editing} data={data} agent={agent} onClose={() => setEditing(null)} />
      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={t('Delete lead #{{id}}', { id: deleting?.id ?? '' })} confirmLabel={t('Yes')} message={t('Are you sure to delete this lead?')} />
      <ConvertDialog row={converting} onClose={() => setConverting(null)} />
      <NotesDialog row={notesOf} onClose={() => setNotesOf(null)} />
      {agent ? null : <CallDialog row={calling} onClose={() => setCalling(null)} />}
      {canAdd ? <AddLeadDialog open={adding} data={data} onClose={() => setAdding(false)} /> : null}
    </section>
  );
}

/** The list's URL: a bulk action posts to it, so the server reads the very filter the list shows. */
function useListAction(): string {
  const location = useLocation();
  return `${location.pathname}${location.search}`;
}

/**
 * A lead's email or phone as the server sent it (masked for agents while the switch is off), with
 * 'Reveal' when the broker lets the agent's role see one: the server checks, audits and answers it.
 */
function Contact({ row, field, canReveal }: { row: LeadRow; field: 'email' | 'phone'; canReveal: boolean }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<Reply & { revealed?: { value: string } | null }>();
  const action = useListAction();
  useFetcherToast(fetcher);
  const revealed = fetcher.data?.ok ? fetcher.data.revealed?.value ?? null : null;
  const shown = revealed ?? row[field];
  const label = field === 'email' ? t('Reveal the email of lead #{{id}}', { id: row.id }) : t('Reveal the phone of lead #{{id}}', { id: row.id });
  return (
    <>
      <span>{shown || '—'}</span>
      {canReveal && row[field] && revealed === null ? (
        <button type="button" className="btn btn-sm btn-ghost lead-reveal" disabled={fetcher.state !== 'idle'} aria-label={label} title={label}
          onClick={() => fetcher.submit({ intent: 'reveal', id: String(row.id), field }, { method: 'post', action })}>
          {t('Reveal')}
        </button>
      ) : null}
    </>
  );
}

function SelectionFields({ selection }: { selection: Selection }) {
  return (
    <>
      <input type="hidden" name="all" value={selection.all ? '1' : '0'} />
      <input type="hidden" name="ids" value={selection.all ? '' : selection.ids.join(',')} />
    </>
  );
}

/** Above this many leads a bulk action shows its progress: the server counts and ticks, the page polls. */
const PROGRESS_ABOVE = 2_000;

/** A v4 UUID from getRandomValues (randomUUID needs a secure context; a broker may serve plain http on a LAN). */
function progressToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A large bulk action's progress: `begin` picks a token when the action will touch more than
 * PROGRESS_ABOVE leads (posted with the form), and while the action runs the list's loader is polled
 * for it (?bulkProgress=, the caller's own only).
 */
function useBulkProgress(count: number, pending: boolean) {
  const location = useLocation();
  const poll = useFetcher<{ kind: 'progress'; progress: { done: number; total: number; finished: boolean } | null }>();
  const [token, setToken] = useState<string | null>(null);
  useEffect(() => {
    if (!pending || !token) return;
    const id = setInterval(() => poll.load(`${location.pathname}?bulkProgress=${token}`), 700);
    return () => clearInterval(id);
  }, [pending, token, location.pathname]); // eslint-disable-line react-hooks/exhaustive-deps -- poll.load is stable enough; a new poll each tick
  const progress = pending && token && poll.data?.kind === 'progress' ? poll.data.progress : null;
  return { token, begin: () => setToken(count > PROGRESS_ABOVE ? progressToken() : null), progress, following: pending && !!token };
}

function BulkProgress({ following, progress }: { following: boolean; progress: { done: number; total: number } | null }) {
  const { t } = useTranslation();
  const f = useFormat();
  if (!following) return null;
  if (!progress) return <p className="muted" role="status">{t('Counting the leads…')}</p>;
  const text = t('{{done}} of {{total}} leads', { done: f.amount(progress.done), total: f.amount(progress.total) });
  return (
    <div className="crm-bulk-progress" aria-live="polite">
      <ProgressBar label={t('Progress')} pct={progress.total > 0 ? (progress.done / progress.total) * 100 : 0} text={text} />
      <span>{text}</span>
    </div>
  );
}

function BulkMove({ screen, target, selection, count, estimated }: { screen: ScreenKey; target: LeadGroup; selection: Selection; count: number; estimated: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [open, setOpen] = useState(false);
  const fetcher = useFetcher<Reply & { count?: number | null }>();
  const action = useListAction();
  const pending = fetcher.state !== 'idle';
  const bulk = useBulkProgress(count, pending);
  const [result, setResult] = useState<number | null>(null);
  useFetcherToast(fetcher, { onSuccess: (r) => { setResult(r.count ?? null); setOpen(false); } });
  const label = t(moveLabel(screen, target));
  return (
    <>
      <button type="button" className="btn btn-sm" disabled={count === 0 || pending} onClick={() => { bulk.begin(); setOpen(true); }}>{label}</button>
      {result !== null ? <span className="muted crm-result" role="status">{t('{{count}} leads moved', { count: f.amount(result) as unknown as number })}</span> : null}
      <Modal open={open} onClose={() => setOpen(false)} title={label} size="sm" dismissible={!pending}
        footer={<>
          <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)} disabled={pending}>{t('Cancel')}</button>
          <SubmitButton form={`bulk-move-${target}`} pending={pending}>{pending ? t('Moving…') : t('Yes')}</SubmitButton>
        </>}>
        <fetcher.Form id={`bulk-move-${target}`} method="post" action={action}>
          <input type="hidden" name="intent" value="move" />
          <input type="hidden" name="target" value={target} />
          <SelectionFields selection={selection} />
          {bulk.token ? <input type="hidden" name="progress" value={bulk.token} /> : null}
          <p>{estimated
            ? t('Move every lead of this list (an estimated {{n}}) to {{group}}?', { n: f.amount(count), group: t(GROUP_LABELS[target]) })
            : t('Move {{count}} leads to {{group}}?', { count: f.amount(count) as unknown as number, group: t(GROUP_LABELS[target]) })}</p>
          <BulkProgress following={bulk.following} progress={bulk.progress} />
        </fetcher.Form>
      </Modal>
    </>
  );
}

function BulkAssign({ data, selection, count, estimated }: { data: ListData; selection: Selection; count: number; estimated: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [open, setOpen] = useState(false);
  const fetcher = useFetcher<Reply & { count?: number | null }>();
  const action = useListAction();
  const pending = fetcher.state !== 'idle';
  const bulk = useBulkProgress(count, pending);
  useFetcherToast(fetcher, { onSuccess: () => setOpen(false) });
  const retention = SCREENS[data.screen as ScreenKey].agentField === 'retId';
  return (
    <>
      <button type="button" className="btn btn-sm" disabled={count === 0 || pending} onClick={() => { bulk.begin(); setOpen(true); }}>{t('Assign Agent')}</button>
      <Modal open={open} onClose={() => setOpen(false)} title={retention ? t('Assign Retention Agent') : t('Assign Agent')} size="sm" dismissible={!pending}
        footer={<>
          <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)} disabled={pending}>{t('Cancel')}</button>
          <SubmitButton form="bulk-assign" pending={pending}>{t('Submit')}</SubmitButton>
        </>}>
        <fetcher.Form id="bulk-assign" method="post" action={action}>
          <input type="hidden" name="intent" value="assign" />
          <SelectionFields selection={selection} />
          {bulk.token ? <input type="hidden" name="progress" value={bulk.token} /> : null}
          <p>{estimated
            ? t('Every lead of this list (an estimated {{n}})', { n: f.amount(count) })
            : t('{{count}} selected', { count: f.amount(count) as unknown as number })}</p>
          <div className="field">
            <label htmlFor="assign-agent">{retention ? t('Retention Agent') : t('Sale Agent')}</label>
            <select id="assign-agent" name="agentId" required defaultValue="">
              <option value="" disabled>{t('Select an agent')}</option>
              {data.agents.map((a) => <option key={a.id} value={a.id}>{a.name} ({a.email})</option>)}
            </select>
          </div>
          <BulkProgress following={bulk.following} progress={bulk.progress} />
        </fetcher.Form>
      </Modal>
    </>
  );
}

/** Status, 'Registered At' range and the agent filter: all in the URL, back to page 1 on change. */
function LeadFilters({ data }: { data: ListData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const [rangeOpen, setRangeOpen] = useState(false);
  const [agentOpen, setAgentOpen] = useState(false);
  const set = (changes: Record<string, string>) => setParams((prev) => {
    const next = new URLSearchParams(prev);
    for (const [k, v] of Object.entries(changes)) { if (v) next.set(k, v); else next.delete(k); }
    next.delete('page');
    return next;
  }, { preventScrollReset: true });
  const fv = data.filters;
  const agentName = data.agents.find((a) => String(a.id) === fv.agent)?.name;
  return (
    <div className="card crm-filters">
      <div className="field">
        <label htmlFor="lead-status-filter">{t('Sale Status')}</label>
        <select id="lead-status-filter" value={fv.status} onChange={(e) => set({ status: e.target.value })}>
          <option value="">{t('All')}</option>
          {data.statuses.map((s) => <option key={s.id} value={s.status}>{s.status}</option>)}
        </select>
      </div>
      <button type="button" className="btn btn-sm" onClick={() => setRangeOpen(true)}>
        {t('Registered At')}{fv.dateStart || fv.dateEnd ? `: ${f.day(fv.dateStart) || '…'} – ${f.day(fv.dateEnd) || '…'}` : ''}
      </button>
      {data.manages ? (
        <button type="button" className="btn btn-sm" onClick={() => setAgentOpen(true)}>
          {t('Filter Agent')}{agentName ? `: ${agentName}` : ''}
        </button>
      ) : null}
      {fv.status || fv.dateStart || fv.dateEnd || fv.agent ? (
        <button type="button" className="btn btn-sm btn-ghost" onClick={() => set({ status: '', dateStart: '', dateEnd: '', agent: '' })}>{t('Clear')}</button>
      ) : null}
      <DateRangeDialog open={rangeOpen} value={{ start: fv.dateStart, end: fv.dateEnd }} onClose={() => setRangeOpen(false)}
        onSubmit={(r) => { setRangeOpen(false); set({ dateStart: r.start, dateEnd: r.end }); }} />
      {data.manages ? (
        <Modal open={agentOpen} onClose={() => setAgentOpen(false)} title={t('Agent Selector')} size="sm">
          <ul className="crm-agent-list">
            <li><button type="button" className="btn btn-ghost" aria-pressed={!fv.agent} onClick={() => { setAgentOpen(false); set({ agent: '' }); }}>{t('All agents')}</button></li>
            {data.agents.map((a) => (
              <li key={a.id}>
                <button type="button" className="btn btn-ghost" aria-pressed={fv.agent === String(a.id)} onClick={() => { setAgentOpen(false); set({ agent: String(a.id) }); }}>
                  <span>{a.name}</span> <span className="muted">{a.email}</span>
                </button>
              </li>
            ))}
          </ul>
          {params.get('agent') && !agentName ? <p className="muted">{t('Agent not found')}</p> : null}
        </Modal>
      ) : null}
    </div>
  );
}

const pick = (v: number | null) => (v === null ? '-2' : String(v));

function EditLeadDialog({ row, data, agent, onClose }: { row: LeadRow | null; data: ListData; agent: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const statusOptions = data.statuses.map((s) => ({ value: s.status, label: s.status }));
  if (row && !statusOptions.some((o) => o.value === row.status)) statusOptions.unshift({ value: row.status, label: row.status });
  const people = (list: { id: number; name: string }[], current: number | null, currentName: string | null) => {
    const options = [{ value: '-2', label: t('Unassigned') }, ...list.map((p) => ({ value: String(p.id), label: p.name }))];
    if (current !== null && !list.some((p) => p.id === current)) options.push({ value: String(current), label: currentName ?? `#${current}` });
    return options;
  };
  return (
    <FormDialog open={!!row} onClose={onClose} schema={EditLeadSchema} intent="edit" id={row?.id}
      title={t('Edit Lead')} defaultValue={row ? {
        firstName: row.firstName, lastName: row.lastName, email: row.email, phone: row.phone, country: row.country, city: row.city,
        funnelLink: row.funnelLink ?? '', reference: row.reference ?? '', leadSourceId: row.leadSourceId ?? '', leadStatus: row.status,
        managerId: pick(row.managerId), agentId: pick(row.agentId), retId: pick(row.retId),
      } : undefined}>
      {(fields) => (!row ? null : agent ? (
        <SelectField label={t('Sale Status')} errors={fields.leadStatus.errors} options={statusOptions} selectProps={getSelectProps(fields.leadStatus)} />
      ) : (
        <div className="form-grid">
          <LeadTextFields fields={fields} names={EDIT_FIELDS} countries={data.countries} current={row.country} />
          <SelectField label={t('Sale Status')} errors={fields.leadStatus.errors} options={statusOptions} selectProps={getSelectProps(fields.leadStatus)} />
          {isAdmin(data.roleId) ? (
            <SelectField label={t('Sale Manager')} errors={fields.managerId.errors} options={people(data.managers, row.managerId, row.managerName)} selectProps={getSelectProps(fields.managerId)} />
          ) : null}
          <SelectField label={t('Sale Agent')} errors={fields.agentId.errors} options={people(data.salesAgents, row.agentId, row.agentName)} selectProps={getSelectProps(fields.agentId)} />
          <SelectField label={t('Retention Agent')} errors={fields.retId.errors} options={people(data.retAgents, row.retId, row.retName)} selectProps={getSelectProps(fields.retId)} />
        </div>
      ))}
    </FormDialog>
  );
}

/** A lead's typed fields: label and input type. */
const LEAD_TEXT_FIELDS = {
  firstName: ['First Name', 'text'], lastName: ['Last Name', 'text'], email: ['Email', 'email'], phone: ['Phone', 'tel'],
  country: ['Country', 'text'], city: ['City', 'text'], funnelLink: ['Funnel Link', 'text'], reference: ['Aff. Reference', 'text'],
  leadSourceId: ['Lead Source ID', 'text'],
} as const;
type LeadTextField = keyof typeof LEAD_TEXT_FIELDS;
/** The field orders (docs/specs.md#crm-lead-lists): the edit form (the lead update payload) and the admin area's add form. */
const EDIT_FIELDS: readonly LeadTextField[] = ['firstName', 'lastName', 'email', 'phone', 'country', 'city', 'funnelLink', 'reference', 'leadSourceId'];
const ADD_FIELDS: readonly LeadTextField[] = ['firstName', 'lastName', 'email', 'phone', 'city', 'country', 'funnelLink', 'reference'];

function LeadTextFields<F extends Partial<Record<LeadTextField, FieldMetadata<string | null | undefined>>>>({ fields, names, countries, current }: {
  fields: F; names: readonly LeadTextField[]; countries: string[]; current?: string;
}) {
  const { t } = useTranslation();
  // the country is picked from the list; a lead's older value outside it stays shown (the server asks for one of the list)
  const countryOptions = countries.map((c) => ({ value: c, label: c }));
  if (current && !countries.includes(current)) countryOptions.unshift({ value: current, label: current });
  return (
    <>
      {names.map((name) => {
        const field = fields[name]!;
        const [label, type] = LEAD_TEXT_FIELDS[name];
        if (name === 'country') {
          return <SelectField key={name} label={t(label)} errors={field.errors} placeholder={t('Select country')} options={countryOptions} selectProps={getSelectProps(field)} />;
        }
        return <Field key={name} label={t(label)} errors={field.errors} inputProps={getInputProps(field, { type })} />;
      })}
    </>
  );
}

function AddLeadDialog({ open, data, onClose }: { open: boolean; data: ListData; onClose: () => void }) {
  const { t } = useTranslation();
  const def = data.statuses.find((s) => s.isDefault)?.status ?? 'New';
  return (
    <FormDialog open={open} onClose={onClose} schema={AddLeadSchema} intent="add" title={t('Add Lead')} defaultValue={{ leadStatus: def }}>
      {(fields) => (
        <div className="form-grid">
          <LeadTextFields fields={fields} names={ADD_FIELDS} countries={data.countries} />
          <SelectField label={t('Lead Status')} errors={fields.leadStatus.errors} placeholder={undefined}
            options={data.statuses.map((s) => ({ value: s.status, label: s.status }))} selectProps={getSelectProps(fields.leadStatus)} />
        </div>
      )}
    </FormDialog>
  );
}

function ConvertDialog({ row, onClose }: { row: LeadRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <FormDialog open={!!row} onClose={onClose} schema={ConvertLeadSchema} intent="convert" id={row?.id} size="sm"
      title={t('Convert lead #{{id}} to a user', { id: row?.id ?? '' })}>
      {(fields) => (
        <>
          <p className="muted">{row ? `${row.firstName} ${row.lastName} · ${row.email}` : null}</p>
          <Field label={t('Password')} errors={fields.password.errors} inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }} />
        </>
      )}
    </FormDialog>
  );
}

/** The notes of a lead, newest first, and the note-creation form ('Enter note'). */
function NotesDialog({ row, onClose }: { row: LeadRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const location = useLocation();
  const list = useFetcher<{ kind: 'notes'; notes: NoteRow[] }>();
  const save = useFetcher<Reply>();
  const leadId = row?.id;
  const load = () => { if (leadId) list.load(`${location.pathname}?notesFor=${leadId}`); };
  useEffect(load, [leadId]); // eslint-disable-line react-hooks/exhaustive-deps -- load once per lead opened
  const [form, fields] = useSchemaForm({
    id: `note-${leadId ?? 'none'}`, schema: NoteSchema, defaultValue: { leadId: leadId ? String(leadId) : '' },
    lastResult: save.state === 'idle' ? save.data?.result : null,
  });
  useFetcherToast(save, { onSuccess: load });
  const notes = list.data?.kind === 'notes' ? list.data.notes : [];
  return (
    <Modal open={!!row} onClose={onClose} title={t('Notes')} size="md">
      <div className="crm-notes" tabIndex={0} role="region" aria-label={t('Notes')}>
        {list.state !== 'idle' && !notes.length ? <p className="muted">{t('Loading…')}</p> : null}
        {list.state === 'idle' && !notes.length ? <p className="muted">{t('No data found')}</p> : null}
        <ul>
          {notes.map((n) => (
            <li key={n.id}>
              <p>{n.content}</p>
              <span className="muted">{n.author ?? '—'} · {f.dateTime(n.createdAt)}</span>
            </li>
          ))}
        </ul>
      </div>
      <save.Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="crm-note-form">
        <input type="hidden" name="intent" value="note" />
        <input type="hidden" name="leadId" value={leadId ?? ''} />
        <div className="field">
          <label htmlFor={fields.content.id}>{t('Note')}</label>
          <textarea {...getTextareaProps(fields.content)} placeholder={t('Enter note')} rows={3} />
          <ErrorList errors={fields.content.errors} />
        </div>
        <SubmitButton pending={save.state !== 'idle'}>{t('Submit')}</SubmitButton>
      </save.Form>
    </Modal>
  );
}

type AgentsAnswer = { ok: true; agents: { email: string; ext: string; status: string }[] } | { ok: false; message: string };

/** Admins and managers: the agent who makes the call, from Voiso's agents and their status. */
function CallDialog({ row, onClose }: { row: LeadRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const agents = useFetcher<AgentsAnswer>();
  const call = useFetcher<Reply>();
  const [agent, setAgent] = useState('');
  const pending = call.state !== 'idle';
  const open = !!row;
  useEffect(() => {
    if (open) { setAgent(''); agents.load('/admin/crm/voiso/agents'); }
  }, [open]); // eslint-disable-line react-hooks/exhaustive-deps -- load once per opening
  useFetcherToast(call, { onSuccess: onClose });
  const answer = agents.data;
  const loading = agents.state !== 'idle' || !answer;
  const name = row ? `${row.firstName} ${row.lastName}`.trim() : '';
  return (
    <Modal open={open} onClose={onClose} title={t('Call {{name}}', { name })} size="sm" dismissible={!pending}
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>{t('Cancel')}</button>
        <SubmitButton form="voiso-call" pending={pending} disabled={!agent || loading}>{pending ? t('Calling…') : t('Call')}</SubmitButton>
      </>}>
      <call.Form id="voiso-call" method="post" action={CALL_ACTION} className="voiso-call">
        <input type="hidden" name="leadId" value={row?.id ?? ''} />
        {loading ? <p className="muted" role="status">{t('Loading agents…')}</p>
          : !answer.ok ? <p className="field-error" role="alert">{t(answer.message)}</p>
            : answer.agents.length === 0 ? <p className="muted">{t('Voiso lists no agents')}</p>
              : (
                <fieldset className="voiso-agents">
                  <legend>{t('Agent who makes the call')}</legend>
                  {answer.agents.map((a) => {
                    const value = a.email || a.ext;
                    return (
                      <label key={value} className="voiso-agent">
                        <input type="radio" name="agent" value={value} checked={agent === value} onChange={() => setAgent(value)} />
                        <span className="voiso-agent-name">{a.email || a.ext}{a.email && a.ext ? <span className="muted"> · {t('Ext. {{ext}}', { ext: a.ext })}</span> : null}</span>
                        <span className={`chip ${agentTone(a.status)}`}>{AGENT_STATUS[a.status] ? t(AGENT_STATUS[a.status]) : a.status || '—'}</span>
                      </label>
                    );
                  })}
                </fieldset>
              )}
      </call.Form>
    </Modal>
  );
}
