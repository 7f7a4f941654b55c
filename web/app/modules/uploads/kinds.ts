// The one policy table of uploaded files: per kind, which file types are accepted (decided from
// the bytes, see sniff.server.ts), how large a file may be, who may upload one and who may read
// it. Shared with the browser (a page can show the accepted types and limits): no server imports.
import type { RoleId } from '~/modules/auth/permissions.ts';
import { ALL_ROLES, BACK_OFFICE_ROLES, ROLE } from '~/shared/roles.ts';

/** The file types the platform stores, as sniffed from their first bytes and verified. */
export const FILE_TYPES = {
  png: { mime: 'image/png', image: true },
  jpeg: { mime: 'image/jpeg', image: true },
  webp: { mime: 'image/webp', image: true },
  gif: { mime: 'image/gif', image: true },
  ico: { mime: 'image/x-icon', image: true },
  pdf: { mime: 'application/pdf', image: false },
  csv: { mime: 'text/csv; charset=utf-8', image: false },
} as const;
export type FileType = keyof typeof FILE_TYPES;

/**
 * `read: 'public'` is served to anyone, signed out included (branding shows on the sign-in
 * page); otherwise the owner and the staff roles listed may read a file. Images are served
 * inline, documents (PDF, CSV) as attachments.
 */
export interface KindPolicy {
  types: readonly FileType[];
  maxBytes: number;
  upload: readonly RoleId[];
  read: 'public' | readonly RoleId[];
}

const KiB = 1024;
const MiB = 1024 * KiB;
const ALL: readonly RoleId[] = ALL_ROLES;
const ADMIN: readonly RoleId[] = [ROLE.admin];
const ADMIN_MANAGER: readonly RoleId[] = BACK_OFFICE_ROLES;
const PHOTO_OR_PDF: readonly FileType[] = ['png', 'jpeg', 'webp', 'pdf'];
const PICTURE: readonly FileType[] = ['png', 'jpeg', 'webp', 'gif'];

export const UPLOAD_KINDS = {
  // a customer's own documents: only they and the staff who review them see them (deposits:
  // admins and managers; identity documents: admins, the only role of /admin/kyc)
  deposit_proof: { types: PHOTO_OR_PDF, maxBytes: 10 * MiB, upload: ALL, read: ADMIN_MANAGER },
  kyc_front: { types: PHOTO_OR_PDF, maxBytes: 10 * MiB, upload: ALL, read: ADMIN },
  kyc_back: { types: PHOTO_OR_PDF, maxBytes: 10 * MiB, upload: ALL, read: ADMIN },
  kyc_address: { types: PHOTO_OR_PDF, maxBytes: 10 * MiB, upload: ALL, read: ADMIN },
  // branding and payment pictures set by the admin, shown to everyone
  logo: { types: PICTURE, maxBytes: 2 * MiB, upload: ADMIN, read: 'public' },
  favicon: { types: ['ico', 'png'], maxBytes: 256 * KiB, upload: ADMIN, read: 'public' },
  auth_background: { types: ['png', 'jpeg', 'webp'], maxBytes: 5 * MiB, upload: ADMIN, read: 'public' },
  qr_code: { types: PICTURE, maxBytes: 1 * MiB, upload: ADMIN, read: 'public' },
  gateway_logo: { types: PICTURE, maxBytes: 1 * MiB, upload: ADMIN, read: 'public' },
  external_payment_logo: { types: PICTURE, maxBytes: 1 * MiB, upload: ADMIN, read: 'public' },
  // lead imports: admins and managers import; the file (every lead's contacts) is read by its
  // importer (the owner) and admins only, never by another manager (issue 22)
  lead_csv: { types: ['csv'], maxBytes: 20 * MiB, upload: ADMIN_MANAGER, read: ADMIN },
} as const satisfies Record<string, KindPolicy>;

export type UploadKind = keyof typeof UPLOAD_KINDS;

export function isUploadKind(kind: string): kind is UploadKind {
  return Object.hasOwn(UPLOAD_KINDS, kind);
}

export function kindPolicy(kind: string): KindPolicy | null {
  return isUploadKind(kind) ? UPLOAD_KINDS[kind] : null;
}

