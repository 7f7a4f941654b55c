// Outgoing mail. Every message is recorded in email_outbox; with SMTP_URL it is also sent
// through nodemailer (and sent_at set), without it the message's links are printed to the log
// so a developer can follow them.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';

export interface Mail { to: string; subject: string; text: string; html?: string }

const transports = new Map<string, Transporter>();
function transportFor(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer.createTransport(url);
    transports.set(url, t);
  }
  return t;
}

export interface MailerOptions { smtpUrl?: string; from?: string }

/** Records the mail and delivers it. Returns the outbox row id. Delivery errors are logged, not thrown. */
export async function sendMail(sql: Sql, mail: Mail, opts: MailerOptions = {}): Promise<{ id: number; sent: boolean }> {
  const smtpUrl = opts.smtpUrl ?? env().SMTP_URL;
  const from = opts.from ?? env().MAIL_FROM;
  const [row] = await sql`INSERT INTO email_outbox (to_address, subject, text_body, html_body)
                          VALUES (${mail.to}, ${mail.subject}, ${mail.text}, ${mail.html ?? null}) RETURNING id`;
  const id = Number(row.id);
  if (!smtpUrl) {
    const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
    console.log(`[mail] to ${mail.to}: ${mail.subject}${links.length ? ` — ${links.join(' ')}` : ''} (no SMTP_URL: kept in email_outbox #${id})`);
    return { id, sent: false };
  }
  try {
    await transportFor(smtpUrl).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    await sql`UPDATE email_outbox SET sent_at = now() WHERE id = ${id}`;
    return { id, sent: true };
  } catch (e) {
    console.error(`[mail] sending #${id} to ${mail.to} failed: ${(e as Error).message}`);
    return { id, sent: false };
  }
}
