// The page of all the signed-in user's notifications (/notifications, /admin/notifications): a
// server-paged table, newest first, unread ones marked, each one opened (marked read, then its url)
// or marked read, and 'Mark all read'.
import { useMemo } from 'react';
import { Form, useFetcher, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { notificationText } from './notification-text.tsx';
import type { NotificationItem } from './notifications.server.ts';

export interface NotificationsData { rows: NotificationItem[]; total: number; unread: number }

export function NotificationsPage({ action }: { action: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const data = useLoaderData<NotificationsData>();
  const readAll = useFetcher<Reply>();
  useFetcherToast(readAll);
  const columns = useMemo<ColumnDef<NotificationItem>[]>(() => [
    {
      id: 'notification', header: t('Notification'), enableSorting: false,
      cell: ({ row: { original: n } }) => {
        const text = notificationText(n, t, f);
        return (
          <div className={`notification-cell${n.read ? '' : ' unread'}`}>
            <strong>{n.read ? null : <span className="unread-dot" aria-hidden="true" />}{text.title}</strong>
            {text.description ? <span className="muted">{text.description}</span> : null}
          </div>
        );
      },
    },
    { id: 'time', header: t('Time'), enableSorting: false, cell: ({ row: { original: n } }) => <time dateTime={n.createdAt}>{f.dateTime(n.createdAt)}</time> },
    {
      id: 'status', header: t('Status'), enableSorting: false,
      cell: ({ row: { original: n } }) => (n.read ? <span className="chip chip-closed">{t('Read')}</span> : <span className="chip chip-pending">{t('Unread')}</span>),
    },
    { id: 'actions', header: t('Actions'), enableSorting: false, cell: ({ row: { original: n } }) => <RowActions n={n} action={action} /> },
  ], [t, f, action]);
  return (
    <section className="page notifications-page">
      <h1 className="page-title">{t('Notifications')}</h1>
      <DataTable columns={columns} data={data.rows} total={data.total} searchable={false} getRowId={(n) => String(n.id)} caption={t('Notifications')}
        toolbar={<>
          <span className="muted">{t('{{count}} unread', { count: data.unread })}</span>
          {data.unread ? (
            <readAll.Form method="post" action={action} className="inline-form">
              <input type="hidden" name="intent" value="readAll" />
              <button type="submit" className="btn btn-sm btn-primary" disabled={readAll.state !== 'idle'}>{t('Mark all read')}</button>
            </readAll.Form>
          ) : null}
        </>} />
    </section>
  );
}

function RowActions({ n, action }: { n: NotificationItem; action: string }) {
  const { t } = useTranslation();
  const mark = useFetcher<Reply>();
  useFetcherToast(mark);
  return (
    <div className="row-actions">
      {n.url ? (
        <Form method="post" action={action} className="inline-form">
          <input type="hidden" name="intent" value="read" />
          <input type="hidden" name="id" value={n.id} />
          <input type="hidden" name="open" value="1" />
          <button type="submit" className="btn btn-sm btn-ghost" aria-label={`${t('View')} (#${n.id})`}>{t('View')}</button>
        </Form>
      ) : null}
      {n.read ? null : (
        <mark.Form method="post" action={action} className="inline-form">
          <input type="hidden" name="intent" value="read" />
          <input type="hidden" name="id" value={n.id} />
          <button type="submit" className="btn btn-sm btn-ghost" disabled={mark.state !== 'idle'} aria-label={`${t('Mark read')} (#${n.id})`}>{t('Mark read')}</button>
        </mark.Form>
      )}
    </div>
  );
}
