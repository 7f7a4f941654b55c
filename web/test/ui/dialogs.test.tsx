// @vitest-environment jsdom
// The UI kit's mutation pieces rendered in a DOM with a real Remix router (createRemixStub): the
// confirm-then-act dialog, the create-or-edit dialog, the fetcher toast hook, the stepper and the
// modal's focus. The actions are real ones built from the server helpers the pages use.
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import { redirect } from '@remix-run/node';
import { useFetcher } from '@remix-run/react';
import { getInputProps } from '@conform-to/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { useState, type ReactNode } from 'react';
import { z } from 'zod';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { Field } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { Stepper } from '~/components/ui/stepper.tsx';
import { ToastProvider, useFetcherToast } from '~/components/ui/toast.tsx';
import { parseIntent, RECORD_ID, type Reply } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const toasts = () => screen.queryAllByRole('region', { name: 'Notifications' }).flatMap((r) => Array.from(r.querySelectorAll('.toast')).map((t) => t.querySelector('strong')?.textContent));

/** One page at '/' with an action; the posted forms are recorded. */
function stub(page: () => ReactNode, action: (form: FormData) => Promise<unknown> | unknown) {
  const posted: Record<string, string>[] = [];
  const Stub = createRemixStub([{
    path: '/',
    Component: () => <ToastProvider>{page()}</ToastProvider>,
    action: async ({ request }) => {
      const form = await request.formData();
      posted.push(Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)])));
      return action(form);
    },
  }]);
  render(<Stub />);
  return posted;
}

const RowSchema = z.object({ intent: z.literal('delete'), id: RECORD_ID });

describe('ConfirmDialog', () => {
  function Page({ onClose }: { onClose: () => void }) {
    const [open, setOpen] = useState(true);
    return (
      <ConfirmDialog open={open} onClose={() => { onClose(); setOpen(false); }} message="Are you sure to delete this user?"
        intent="delete" fields={{ id: 7 }} />
    );
  }

  test('Yes posts the intent and the row, spins while pending, shows the toast and closes', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const onClose = vi.fn();
    const posted = stub(() => <Page onClose={onClose} />, async (form) => {
      await held;
      const { submission } = parseIntent(form, { delete: RowSchema });
      return submission.status === 'success' ? replyDone(submission, 'User deleted successfully') : replyRefused(submission);
    });
    screen.getByText('Are you sure to delete this user?');
    fireEvent.click(await screen.findByRole('button', { name: 'Yes' }));
    const yes = await waitFor(() => {
      const b = screen.getByRole('button', { name: /Yes/ });
      expect((b as HTMLButtonElement).disabled).toBe(true);
      return b;
    });
    expect(yes.getAttribute('aria-busy')).toBe('true');
    expect((screen.getByRole('button', { name: 'Cancel' }) as HTMLButtonElement).disabled).toBe(true);
    release();
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
    expect(posted).toEqual([{ intent: 'delete', id: '7' }]);
    await waitFor(() => expect(toasts()).toEqual(['User deleted successfully'])); // the toast may render a turn after the close
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test('a refusal shows the error toast and the dialog stays open', async () => {
    const onClose = vi.fn();
    stub(() => <Page onClose={onClose} />, (form) => replyRefused(parseIntent(form, { delete: RowSchema }).submission, { toast: '', status: 409 }));
    fireEvent.click(await screen.findByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(toasts()).toEqual(['Something went wrong']));
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByRole('dialog')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Yes' }) as HTMLButtonElement).disabled).toBe(false);
  });
});

const PlanSchema = z.object({
  id: RECORD_ID.optional(),
  name: z.string({ required_error: 'Name is required' }).trim().min(1, 'Name is required'),
  price: z.string({ required_error: 'Price is required' }),
});

describe('FormDialog', () => {
  function Page({ id, name }: { id?: number; name?: string }) {
    const [open, setOpen] = useState(true);
    return (
      <FormDialog open={open} onClose={() => setOpen(false)} title={id ? 'Edit Plan' : 'Add Plan'} schema={PlanSchema} intent="save" id={id}
        defaultValue={name ? { name, price: '10' } : undefined}>
        {(fields) => (
          <>
            <Field label="Name" errors={fields.name.errors} inputProps={getInputProps(fields.name, { type: 'text' })} />
            <Field label="Price" errors={fields.price.errors} inputProps={getInputProps(fields.price, { type: 'text' })} />
          </>
        )}
      </FormDialog>
    );
  }
  const save = (form: FormData) => {
    const { submission } = parseIntent(form, { save: PlanSchema });
    if (submission.status !== 'success') return replyRefused(submission);
    if (submission.value.name === 'Taken') return replyRefused(submission, { fieldErrors: { name: ['Name is taken'] }, toast: 'Name is taken', status: 409 });
    return replyDone(submission, submission.value.id ? 'Plan updated successfully' : 'Plan added successfully');
  };

  test('create: no id is posted; errors show only under touched fields', async () => {
    const posted = stub(() => <Page />, save);
    const name = await screen.findByLabelText('Name');
    const price = screen.getByLabelText('Price');
    fireEvent.focus(name);
    fireEvent.blur(name);
    await screen.findByText('Name is required');
    expect(screen.queryByText('Price is required')).toBeNull(); // not touched yet
    fireEvent.input(name, { target: { value: 'Gold' } });
    await waitFor(() => expect(screen.queryByText('Name is required')).toBeNull());
    fireEvent.input(price, { target: { value: '9.5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(toasts()).toEqual(['Plan added successfully']));
    expect(posted).toEqual([{ intent: 'save', name: 'Gold', price: '9.5' }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test("update: the id is posted; the server's field error shows under its field and the dialog stays", async () => {
    const posted = stub(() => <Page id={3} name="Taken" />, save);
    expect((await screen.findByLabelText('Name') as HTMLInputElement).value).toBe('Taken');
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByRole('dialog').querySelector('.field-error')?.textContent).toBe('Name is taken');
    expect(posted).toEqual([{ intent: 'save', id: '3', name: 'Taken', price: '10' }]);
    // one message per problem: the field says it, no toast says it again
    await act(async () => { await new Promise((r) => setTimeout(r, 50)); });
    expect(toasts()).toEqual([]);
  });
});

describe('useFetcherToast', () => {
  test('one toast per answer, none again when the page re-renders; quiet errors stay quiet', async () => {
    let n = 0;
    function Page() {
      const fetcher = useFetcher<Reply>();
      const quiet = useFetcher<Reply>();
      const [, rerender] = useState(0);
      useFetcherToast(fetcher);
      useFetcherToast(quiet, { quietErrors: true });
      return (
        <>
          <button type="button" onClick={() => fetcher.submit({ intent: 'x' }, { method: 'post' })}>go</button>
          <button type="button" onClick={() => quiet.submit({ intent: 'fail' }, { method: 'post' })}>quiet</button>
          <button type="button" onClick={() => rerender((x) => x + 1)}>render</button>
        </>
      );
    }
    stub(() => <Page />, (form) => (form.get('intent') === 'fail' ? { ok: false, toast: 'Nope' } : { ok: true, toast: `Done ${++n}` }));
    fireEvent.click(await screen.findByText('go'));
    await waitFor(() => expect(toasts()).toEqual(['Done 1']));
    fireEvent.click(screen.getByText('render'));
    fireEvent.click(screen.getByText('quiet'));
    fireEvent.click(screen.getByText('go'));
    await waitFor(() => expect(toasts()).toEqual(['Done 1', 'Done 2']));
  });

  test('a card remounted after its save (new key from the reloaded data) does not toast the same answer again', async () => {
    let saved = 0;
    function Card() {
      // a keyed fetcher keeps its answer across remounts, as the API settings cards do
      const fetcher = useFetcher<Reply>({ key: 'card' });
      useFetcherToast(fetcher);
      return <button type="button" onClick={() => fetcher.submit({ intent: 'save' }, { method: 'post' })}>save</button>;
    }
    function Page() {
      const [version, setVersion] = useState(0);
      return (
        <>
          <Card key={version} />
          <button type="button" onClick={() => setVersion((v) => v + 1)}>remount</button>
        </>
      );
    }
    stub(() => <Page />, () => ({ ok: true, toast: `Saved ${++saved}` }));
    fireEvent.click(await screen.findByText('save'));
    await waitFor(() => expect(toasts()).toEqual(['Saved 1']));
    fireEvent.click(screen.getByText('remount'));
    await act(async () => {}); // the remounted card's effects have run
    expect(toasts()).toEqual(['Saved 1']);
  });
});

describe('toasts: one message per problem', () => {
  test('a success replaces the error before it; the same error again is one toast', async () => {
    let n = 0;
    function Page() {
      const fetcher = useFetcher<Reply>();
      useFetcherToast(fetcher);
      return (
        <>
          <button type="button" onClick={() => fetcher.submit({ intent: 'fail' }, { method: 'post' })}>fail</button>
          <button type="button" onClick={() => fetcher.submit({ intent: 'ok' }, { method: 'post' })}>ok</button>
        </>
      );
    }
    stub(() => <Page />, (form) => (form.get('intent') === 'fail' ? { ok: false, toast: 'The file is too large' } : { ok: true, toast: `Uploaded ${++n}` }));
    fireEvent.click(await screen.findByText('fail'));
    await waitFor(() => expect(toasts()).toEqual(['The file is too large']));
    fireEvent.click(screen.getByText('fail'));
    await waitFor(() => expect(screen.getByText('fail').closest('body')).toBeTruthy());
    await act(async () => { await new Promise((r) => setTimeout(r, 50)); });
    expect(toasts()).toEqual(['The file is too large']);
    fireEvent.click(screen.getByText('ok'));
    await waitFor(() => expect(toasts()).toEqual(['Uploaded 1']));
  });
});

describe('Stepper', () => {
  test('a step is typed into the input: onChange and the form both see an input event', async () => {
    const seen: string[] = [];
    function Page() {
      const [v, setV] = useState('1');
      return (
        <form onInput={(e) => seen.push((e.target as HTMLInputElement).value)}>
          <Stepper aria-label="Amount" value={v} onValueChange={setV} next={(d) => String(Number(v) + d)} decreaseLabel="Less" increaseLabel="More" />
        </form>
      );
    }
    render(<Page />);
    const input = screen.getByLabelText('Amount') as HTMLInputElement;
    fireEvent.click(screen.getByRole('button', { name: 'More' }));
    fireEvent.click(screen.getByRole('button', { name: 'More' }));
    expect(input.value).toBe('3');
    fireEvent.click(screen.getByRole('button', { name: 'Less' }));
    expect(input.value).toBe('2');
    expect(seen).toEqual(['2', '3', '2']);
  });
  test('a text input, still a spinbutton: a number as the page\'s language writes it stays as typed (docs/specs.md#number-input)', () => {
    function Page() {
      const [v, setV] = useState('');
      return <Stepper aria-label="Amount" value={v} onValueChange={setV} next={() => v} decreaseLabel="Less" increaseLabel="More" />;
    }
    render(<Page />);
    const input = screen.getByRole('spinbutton', { name: 'Amount' }) as HTMLInputElement;
    expect(input.type).toBe('text');
    // a number input would drop '1.000,5' (not a number in the browser's own format)
    fireEvent.change(input, { target: { value: '1.000,5' } });
    expect(input.value).toBe('1.000,5');
  });
});

describe('Modal', () => {
  test('a parent re-rendering with a new onClose leaves the focus where the user put it', () => {
    function Page({ tick }: { tick: number }) {
      return (
        <Modal open onClose={() => void tick} title="Order">
          <input aria-label="Amount" />
        </Modal>
      );
    }
    const { rerender } = render(<Page tick={0} />);
    const input = screen.getByLabelText('Amount');
    act(() => input.focus());
    rerender(<Page tick={1} />);
    expect(document.activeElement).toBe(input);
  });
});

describe('a done action closes its dialog', () => {
  test('an action answering with a redirect (its toast a flash) closes the confirm dialog', async () => {
    const onClose = vi.fn();
    function Page() {
      const [open, setOpen] = useState(true);
      return (
        <ConfirmDialog open={open} onClose={() => { onClose(); setOpen(false); }} message="Subscribe to Gold?" intent="subscribe" fields={{ planId: 2 }} />
      );
    }
    stub(() => <Page />, () => redirect('/'));
    fireEvent.click(await screen.findByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
    // onClose's state change renders on React's next pass
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  test('a refusal after a redirecting success is still a refusal: the dialog stays', async () => {
    const onClose = vi.fn();
    function Page() {
      return <ConfirmDialog open onClose={onClose} message="Subscribe to Gold?" intent="subscribe" />;
    }
    stub(() => <Page />, () => ({ ok: false, toast: 'This is already your plan' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(toasts()).toEqual(['This is already your plan']));
    expect(onClose).not.toHaveBeenCalled();
  });
});
