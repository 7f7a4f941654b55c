// reCAPTCHA v2 verified on the server (msw at the network boundary), and mail through a real
// SMTP peer (smtp-server) to prove the nodemailer path.
import { afterAll, describe, expect, test } from 'vitest';
import { mockServer } from '../mocks/server.ts';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { AuthError, requestPasswordReset, signIn, signUp } from '~/modules/auth/auth.server.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { sendMail } from '~/modules/email/mailer.server.ts';
import { recaptchaCalls, recaptchaHandlers } from '../mocks/recaptcha.ts';
import { createUser, PASSWORD, postgresStore, testAuthConfig, testSql, uniqueEmail, uniqueIp } from '../helpers.ts';

const sql = testSql();
const store = postgresStore(sql);
mockServer(...recaptchaHandlers);
afterAll(async () => {
  await sql.end();
});

const captchaOn = testAuthConfig({ captcha: { enabled: true, secretKey: 'test-secret' } });

describe('reCAPTCHA v2', () => {
  test('sign-in with the setting on needs a response the provider accepts', async () => {
    const u = await createUser(sql);
    const ip = uniqueIp();
    await expect(signIn(sql, store, captchaOn, { email: u.email, password: PASSWORD, remember: false, ip })).rejects.toMatchObject({ message: MESSAGES.captcha });
    await expect(signIn(sql, store, captchaOn, { email: u.email, password: PASSWORD, remember: false, ip, humanKey: 'robot' })).rejects.toBeInstanceOf(AuthError);
    await expect(signIn(sql, store, captchaOn, { email: u.email, password: PASSWORD, remember: false, ip, humanKey: 'human-ok' })).resolves.toMatchObject({ userId: u.id });
    const last = recaptchaCalls.at(-1)!;
    expect(last).toEqual({ secret: 'test-secret', response: 'human-ok', remoteip: ip });
  });

  test('sign-up and forgot password verify it too; with the setting off the provider is not asked', async () => {
    const before = recaptchaCalls.length;
    const email = uniqueEmail('cap');
    const input = {
      fullName: 'Cap', email, password: 'Abcdefg-123', passwordConfirmation: 'Abcdefg-123', phone: '+235 66 12 34 56', country: 'Chad', city: 'N', address: 'A',
      postalCode: '1', currency: 'USD', ip: uniqueIp(),
    };
    await expect(signUp(sql, captchaOn, store, { ...input, humanKey: 'nope' })).rejects.toMatchObject({ message: MESSAGES.captcha });
    await expect(signUp(sql, captchaOn, store, { ...input, humanKey: 'human-ok' })).resolves.toMatchObject({ verificationSent: false });
    await expect(requestPasswordReset(sql, store, captchaOn, { email, ip: uniqueIp() })).rejects.toMatchObject({ message: MESSAGES.captcha });
    expect(recaptchaCalls.length).toBe(before + 2); // the empty humanKey is refused without a call
    const u = await createUser(sql);
    await signIn(sql, store, testAuthConfig(), { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    expect(recaptchaCalls.length).toBe(before + 2);
  });
});

describe('email', () => {
  test('without SMTP_URL the mail is kept in the outbox', async () => {
    const to = uniqueEmail('outbox');
    const r = await sendMail(sql, { to, subject: 'Hello', text: 'Open https://app.test/x' }, { smtpUrl: '' });
    expect(r.sent).toBe(false);
    const [row] = await sql`SELECT subject, sent_at FROM email_outbox WHERE id = ${r.id}`;
    expect(row).toMatchObject({ subject: 'Hello', sent_at: null });
  });

  test('with SMTP_URL nodemailer delivers to a real SMTP peer', async () => {
    const received: { from: string; to: string[]; data: string }[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, cb) {
        let data = '';
        stream.on('data', (c: Buffer) => (data += c.toString()));
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    const port = (smtp.server.address() as AddressInfo).port;
    try {
      const to = uniqueEmail('smtp');
      const r = await sendMail(sql, { to, subject: 'Reset', text: 'Link: https://app.test/reset-password/abc' }, { smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Broker <no-reply@broker.test>' });
      expect(r.sent).toBe(true);
      expect(received).toHaveLength(1);
      expect(received[0].to).toEqual([to]);
      expect(received[0].from).toBe('no-reply@broker.test');
      expect(received[0].data).toContain('Subject: Reset');
      expect(received[0].data).toContain('https://app.test/reset-password/abc');
      const [row] = await sql`SELECT sent_at FROM email_outbox WHERE id = ${r.id}`;
      expect(row.sent_at).not.toBeNull();
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
