// msw handler for Google's reCAPTCHA siteverify: a response token 'human-ok' passes, anything
// else fails. Requests are recorded so tests can assert what the server sent.
import { http, HttpResponse } from 'msw';
import { RECAPTCHA_VERIFY_URL } from '~/modules/auth/captcha.server.ts';

export const recaptchaCalls: { secret: string | null; response: string | null; remoteip: string | null }[] = [];

export const recaptchaHandlers = [
  http.post(RECAPTCHA_VERIFY_URL, async ({ request }) => {
    const body = new URLSearchParams(await request.text());
    const call = { secret: body.get('secret'), response: body.get('response'), remoteip: body.get('remoteip') };
    recaptchaCalls.push(call);
    const success = call.secret === 'test-secret' && call.response === 'human-ok';
    return HttpResponse.json(success ? { success: true, hostname: 'app.test' } : { success: false, 'error-codes': ['invalid-input-response'] });
  }),
];
