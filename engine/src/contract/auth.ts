// web → engine commands carry the shared ENGINE_SECRET in this header (checked in http/internal.ts).
export const SECRET_HEADER = 'x-engine-secret';
