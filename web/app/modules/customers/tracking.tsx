// The Tracking tab of the Edit Customer page (docs/specs.md#customer-records): the customer's visited URLs with
// their times, newest first, server-paged; on the first page new visits arrive live from the
// engine's staff-only topic track:{userId} (a ticket the web signs only for a staff member who
// may open this customer: /dashboard/ticket?track={id}).
import { useMemo, useState } from 'react';
import { useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { DataTable, type ColumnDef } from '~/components/ui/data-table.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { readListState } from '~/components/ui/list-params.ts';
import { RealtimeProvider, useRealtime, useRealtimeStatus } from '~/shared/realtime.tsx';
import type { TrackItem } from './tracking.server.ts';
import { ScrollRegion } from './edit-scroll.tsx';

export function TrackingTab({ customerId, rows, total }: { customerId: number; rows: TrackItem[]; total: number }) {
  return (
    <RealtimeProvider track={customerId}>
      <TrackingList rows={rows} total={total} />
    </RealtimeProvider>
  );
}

/** A live item as the engine delivers it (the web's TrackItem), else null. */
export function readTrackEvent(data: unknown): TrackItem | null {
  const d = (data ?? {}) as Partial<TrackItem>;
  if (typeof d.url !== 'string' || typeof d.time !== 'string' || !Number.isSafeInteger(d.id)) return null;
  return { id: d.id as number, url: d.url, time: d.time };
}

function TrackingList({ rows, total }: { rows: TrackItem[]; total: number }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [params] = useSearchParams();
  const firstPage = readListState(params).page === 1;
  const connected = useRealtimeStatus();
  // visits that arrived since the page was loaded (page 1 only: later pages keep their rows)
  const [live, setLive] = useState<TrackItem[]>([]);
  useRealtime((event, data) => {
    if (event !== 'track') return;
    const item = readTrackEvent(data);
    if (item) setLive((l) => (l.some((x) => x.id === item.id) ? l : [item, ...l]));
  });
  const known = useMemo(() => new Set(rows.map((r) => r.id)), [rows]);
  const fresh = live.filter((x) => !known.has(x.id) && (rows.length === 0 || x.id > rows[0].id));
  const shown = firstPage ? [...fresh, ...rows] : rows;
  const columns = useMemo<ColumnDef<TrackItem>[]>(() => [
    { id: 'url', header: t('URL'), enableSorting: false, cell: ({ row: { original: o } }) => <span className="mono tracking-url">{o.url}</span> },
    { id: 'time', header: t('Time'), enableSorting: false, cell: ({ row: { original: o } }) => <span className="nowrap">{f.dateTime(o.time)}</span> },
  ], [t, f]);
  return (
    <div className="tracking-tab">
      <p className="muted tracking-status" role="status">
        <span className={`dot ${connected ? 'dot-open' : 'dot-closed'}`} aria-hidden="true" /> {connected ? t('Live') : t('Connecting…')}
      </p>
      <ScrollRegion label={t('Tracking')}>
        <DataTable columns={columns} data={shown} total={total + fresh.length} searchable={false} getRowId={(r) => String(r.id)} caption={t('Tracking')} />
      </ScrollRegion>
    </div>
  );
}
