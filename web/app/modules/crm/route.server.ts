// What the nine lead screens (routes/_staff.admin.crm.*, _staff.admin.leads.*) read and post: each
// route checks its access and hands over the caller, its screen and the URL's search params; the
// list state is parsed before any SQL, the caller's scope and masking applied on the server, and
// every action answered as one Reply. A bulk action posts to the list's own URL: its filter is read
// from there exactly as the list reads it.
import { latestImport } from './import.server.ts';
import { countryNames } from '~/modules/auth/countries.server.ts';
import { callBlocked } from './voiso.server.ts';
import type { Sql } from '~/shared/sql.ts';
import { PROGRESS_TOKEN, readProgress } from '~/shared/statement-progress.server.ts';
import { parseListQuery } from '~/components/ui/list-params.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { refuse, replyRefusal } from '~/shared/result.server.ts';
import { SCREENS, SORTABLE, type ScreenKey, type SortKey } from './screens.ts';
import { LEAD_FILTERS, parseLeadForm } from './schemas.ts';
import {
  addLead, addNote, bulkAssign, bulkMove, convertLead, deleteLead, deleteOwnLead, editLead, leadNotes, listLeads, masksFor, revealAllowed, revealContact,
  staffChoices, statusChoices, type ActionResult, type Caller, type LeadFilters, type LeadRow, type NoteRow,
} from './leads.server.ts';
import { isAdmin, isBackOffice, ROLE } from '~/shared/roles.ts';

const ID = /^[1-9][0-9]{0,15}$/;

function readFilters(params: URLSearchParams) {
  return parseListQuery(params, { sortable: SORTABLE, dates: true, extra: LEAD_FILTERS });
}

/**
 * A lead screen's read: the list (or, for a fetcher, one lead's notes or a bulk action's progress)
 * with its status; null: no such lead (404).
 */
export async function loadLeadScreen(sql: Sql, caller: Caller, key: ScreenKey, params: URLSearchParams) {
  const screen = SCREENS[key];
  {
    const [masked, canReveal] = await Promise.all([masksFor(sql, caller), revealAllowed(sql, caller)]);
    // the notes dialog reads a lead's notes through this loader (a fetcher)
    const notesFor = params.get('notesFor');
    if (notesFor !== null) {
      const notes = ID.test(notesFor) ? await leadNotes(sql, caller, Number(notesFor)) : null;
      if (!notes) return null;
      return { status: 200, body: { kind: 'notes' as const, notes } };
    }
    // a large bulk action's progress, polled by the page while the action runs (the caller's own only)
    const bulkProgress = params.get('bulkProgress');
    if (bulkProgress !== null) {
      if (!PROGRESS_TOKEN.test(bulkProgress)) return { status: 400, body: { kind: 'progress' as const, progress: null, message: 'Invalid progress token' } };
      return { status: 200, body: { kind: 'progress' as const, progress: await readProgress(sql, bulkProgress, caller.id), message: null as string | null } };
    }
    const manages = isBackOffice(caller.roleId);
    const agentRole = screen.agentField === 'retId' ? ROLE.retention : ROLE.sales;
    const parsed = readFilters(params);
    const q = parsed.ok ? parsed.query : null;
    // the page and the pickers at once (the pool has room): one round trip's wait instead of two
    const [statuses, managers, salesAgents, retAgents, list, lastImport, callBlockedBy] = await Promise.all([
      statusChoices(sql),
      isAdmin(caller.roleId) ? staffChoices(sql, caller, ROLE.manager) : Promise.resolve([]),
      staffChoices(sql, caller, ROLE.sales),
      staffChoices(sql, caller, ROLE.retention),
      q ? listLeads(sql, { caller, screen, masked }, {
        status: q.status, agent: manages ? q.agent : '', dateStart: q.dateStart, dateEnd: q.dateEnd, search: q.search,
        sort: q.sort as SortKey, dir: q.dir, limit: q.limit, offset: q.offset,
      }) : Promise.resolve(null),
      // the CSV import panel's starting point (the caller's latest import), read with the page rather
      // than by a fetcher on mount, which raced the first filter's navigation
      manages && screen.set === 'sales' ? latestImport(sql, caller.id) : Promise.resolve(null),
      // the phone button is disabled, with the reason, while Voiso is not configured
      screen.own ? Promise.resolve(null) : callBlocked(sql, caller.roleId),
    ]);
    const agents = agentRole === ROLE.retention ? retAgents : salesAgents;
    const base = {
      kind: 'list' as const, screen: key, roleId: caller.roleId, masked, canReveal: masked && canReveal, manages, statuses, agents, managers, salesAgents, retAgents, lastImport,
      // Add / Edit Lead pick the country from the sign-up's list (the one lead schema reads those names)
      countries: manages ? countryNames() : [],
      callBlocked: callBlockedBy,
    };
    if (!parsed.ok || !q || !list) {
      return { status: 400, body: {
        ...base, rows: [] as LeadRow[], total: 0, estimated: false, bounded: false,
        filters: { status: '', agent: '', dateStart: '', dateEnd: '' },
        filterError: (parsed.ok ? null : { field: parsed.field, message: parsed.message }) as { field: string; message: string } | null,
      } };
    }
    return { status: 200, body: {
      ...base, rows: list.rows, total: list.total, estimated: list.estimated, bounded: list.bounded,
      filters: { status: q.status, agent: manages ? q.agent : '', dateStart: q.dateStart, dateEnd: q.dateEnd },
      filterError: null as { field: string; message: string } | null,
    } };
  }
}
/** what a lead screen's loader answers (the page's useLoaderData) */
export type LeadsLoader = () => Promise<NonNullable<Awaited<ReturnType<typeof loadLeadScreen>>>['body']>;
export type { NoteRow };

/** A lead screen's post: the form, the list's search params (a bulk action's filter), the client's address. */
export async function leadScreenAction(sql: Sql, caller: Caller, key: ScreenKey, form: FormData, params: URLSearchParams, ip: string | null) {
  const screen = SCREENS[key];
  {
    const { intent, submission } = parseLeadForm(form);
    if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: ['password'] });
    const v = submission.value as Record<string, unknown>;
    let r: ActionResult;
    // the affiliate portal offers one action: deleting one's own lead
    if (screen.own && intent !== 'delete') return replyRefused(submission, { intent, status: 403, toast: 'Forbidden' });
    switch (intent) {
      case 'move':
      case 'assign': {
        const parsed = readFilters(params);
        if (!parsed.ok) return replyRefused(submission, { intent, toast: parsed.message });
        const q = parsed.query;
        const f: LeadFilters = { status: q.status, agent: q.agent, dateStart: q.dateStart, dateEnd: q.dateEnd, search: q.search };
        const ctx = { caller, screen, masked: await masksFor(sql, caller) };
        const sel = { all: v.all as boolean, ids: v.ids as number[] };
        const progress = (v.progress as string | undefined) ?? null;
        r = intent === 'move'
          ? await bulkMove(sql, ctx, f, sel, v.target as 'sales' | 'retentions' | 'archived', ip, progress)
          : await bulkAssign(sql, ctx, f, sel, v.agentId as number, ip, progress);
        break;
      }
      case 'edit': r = await editLead(sql, caller, v as unknown as Parameters<typeof editLead>[2], ip); break;
      case 'delete': r = screen.own ? await deleteOwnLead(sql, caller, v.id as number, ip) : await deleteLead(sql, caller, v.id as number, ip); break;
      case 'note': r = await addNote(sql, caller, v.leadId as number, v.content as string, ip); break;
      case 'add': r = await addLead(sql, caller, v as unknown as Parameters<typeof addLead>[2], ip); break;
      case 'convert': r = await convertLead(sql, caller, v.id as number, v.password as string, ip); break;
      case 'reveal': r = await revealContact(sql, caller, v.id as number, v.field as 'email' | 'phone', ip); break;
      default: r = refuse(400, 'Something went wrong');
    }
    if (r.ok) {
      const extra = { count: r.count ?? null, revealed: r.revealed ?? null };
      return replyDone(submission, r.toast, { intent, values: r.values, hideFields: ['password'], resetForm: intent === 'note', extra });
    }
    return replyRefusal(submission, r, { intent, hideFields: ['password'], extra: { count: null, revealed: null } });
  }
}
