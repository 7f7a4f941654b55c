// The reCAPTCHA v2 checkbox. Its response token goes into the form as humanKey.
import { useEffect, useId, useRef } from 'react';

declare global {
  interface Window {
    grecaptcha?: { render: (el: HTMLElement, opts: Record<string, unknown>) => number; reset: (id?: number) => void };
    __recaptchaReady?: () => void;
  }
}

export function Recaptcha({ siteKey, onChange, theme }: { siteKey: string; onChange: (token: string) => void; theme?: 'dark' | 'light' }) {
  const ref = useRef<HTMLDivElement>(null);
  const widget = useRef<number | null>(null);
  const id = useId();
  const cb = useRef(onChange);
  cb.current = onChange;
  useEffect(() => {
    if (!siteKey) return;
    const render = () => {
      if (!ref.current || widget.current !== null || !window.grecaptcha?.render) return;
      widget.current = window.grecaptcha.render(ref.current, {
        sitekey: siteKey,
        theme: theme ?? 'dark',
        callback: (token: string) => cb.current(token),
        'expired-callback': () => cb.current(''),
      });
    };
    if (window.grecaptcha?.render) render();
    else {
      window.__recaptchaReady = render;
      if (!document.querySelector('script[data-recaptcha]')) {
        const s = document.createElement('script');
        s.src = 'https://www.google.com/recaptcha/api.js?onload=__recaptchaReady&render=explicit';
        s.async = true;
        s.defer = true;
        s.dataset.recaptcha = 'true';
        document.head.appendChild(s);
      }
    }
  }, [siteKey, theme]);
  if (!siteKey) return null;
  return <div ref={ref} id={id} className="recaptcha" />;
}
