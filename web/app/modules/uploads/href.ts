// The link to a stored upload, from what a setting or a row holds.

/**
 * An uploaded file a setting points at (a gateway's QR code, an external payment's logo), as the
 * URL that serves it through the upload service's access check, or null. Stored as the upload's
 * id ('42') or its path ('/uploads/42'); anything else is not shown.
 */
export function uploadHref(ref: string | null | undefined): string | null {
  const m = /^(?:\/uploads\/)?([1-9][0-9]{0,15})$/.exec(String(ref ?? '').trim());
  return m && Number.isSafeInteger(Number(m[1])) ? `/uploads/${m[1]}` : null;
}
