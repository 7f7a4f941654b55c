// Only same-origin paths are followed after a form post. The target is resolved the way a browser
// resolves a Location header; whitespace, control characters and backslashes (which browsers drop
// or read as '/') never pass, so '/\t/evil', '/\\evil' or a CRLF cannot reach another host or a header.
const PROBE = 'http://probe.invalid';

export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/'): string {
  if (typeof to !== 'string' || !to.startsWith('/') || to.length > 2000) return fallback;
  if (/[\s\p{Cc}\p{Cf}\\]/u.test(to)) return fallback;
  let url: URL;
  try {
    url = new URL(to, PROBE);
  } catch {
    return fallback;
  }
  const path = url.pathname + url.search + url.hash;
  // '/.//evil' resolves to the path '//evil', which a browser would read as another host
  if (url.origin !== PROBE || path.startsWith('//')) return fallback;
  return path;
}
