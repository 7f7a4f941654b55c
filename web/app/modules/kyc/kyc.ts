// KYC (docs/specs.md#kyc): what the customer's form and the staff's decisions post, shared by the
// pages (Conform validates in the browser) and their actions. No server imports.
import { z } from 'zod';
import { RECORD_ID } from '~/shared/forms.ts';
import { UPLOAD_KINDS, FILE_TYPES } from '~/modules/uploads/kinds.ts';

export const KYC_TYPES = ['national_id', 'passport', 'driver_license'] as const;
export type KycType = (typeof KYC_TYPES)[number];
export const KYC_STATUSES = ['pending', 'approved', 'declined'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/** i18n keys of the document types and statuses. */
export const KYC_TYPE_LABELS: Record<KycType, string> = {
  national_id: 'National ID',
  passport: 'Passport',
  driver_license: "Driver's License",
};
export const KYC_STATUS_LABELS: Record<KycStatus, string> = { pending: 'Pending', approved: 'Approved', declined: 'Declined' };

/** The form's file inputs and the upload kind each one stores (modules/uploads/kinds.ts). */
export const KYC_FILE_FIELDS = { front: 'kyc_front', back: 'kyc_back', address: 'kyc_address' } as const;
export type KycFileField = keyof typeof KYC_FILE_FIELDS;

/** One of a document's files, as the pages link it (GET /uploads/:id applies the read policy). */
export interface KycFile { id: number; name: string; image: boolean }
export type KycFiles = Record<KycFileField, KycFile | null>;

export interface KycDocument {
  id: number;
  type: KycType;
  status: KycStatus;
  declineReason: string | null;
  createdAt: string;
  decidedAt: string | null;
  files: KycFiles;
}

/** What the file inputs accept (the upload service decides from the bytes; this only filters the picker). */
export const KYC_ACCEPT = UPLOAD_KINDS.kyc_front.types.map((t) => FILE_TYPES[t].mime).join(',');
export const KYC_MAX_BYTES = UPLOAD_KINDS.kyc_front.maxBytes;

/** Longest decline reason (a sentence or two for the customer); the column's check says the same. */
export const KYC_REASON_MAX = 500;

/**
 * The text part of the customer's form (the files are the upload service's): the document type.
 * The spec makes the files optional; this platform requires at least the front side, checked by
 * the action (the file went through the upload service) and by KycBrowserSchema in the browser.
 */
export const KycSubmitSchema = z.object({
  type: z.enum(KYC_TYPES, { errorMap: () => ({ message: 'Document type is required' }) }),
});

const isFile = (v: unknown): v is File => typeof File !== 'undefined' && v instanceof File && v.size > 0;

/** The browser's check of the whole form: the type, and a front side picked. */
export const KycBrowserSchema = KycSubmitSchema.extend({
  front: z.custom<File>(isFile, { message: 'Front side is required' }),
  back: z.custom<File>((v) => v === undefined || isFile(v)).optional(),
  address: z.custom<File>((v) => v === undefined || isFile(v)).optional(),
});

const seenStatus = z.enum(KYC_STATUSES);

/** Staff: approve a document (the status they saw is posted: a decision made meanwhile wins). */
export const KycApproveSchema = z.object({ id: RECORD_ID, from: seenStatus });

/** Staff: decline a document, with the reason the customer reads. */
export const KycDeclineSchema = z.object({
  id: RECORD_ID,
  from: seenStatus,
  declineReason: z.string({ required_error: 'Decline reason is required' }).trim()
    .min(1, { message: 'Decline reason is required' })
    .max(KYC_REASON_MAX, { message: 'Decline reason allows at most 500 characters' }),
});

export const KYC_DECISION_SCHEMAS = { approve: KycApproveSchema, decline: KycDeclineSchema };
