// The role names and capabilities (engine/src/contract/roles.ts, shared with the engine), for every
// layer of the web app: shared code may not import modules/auth, so the names live here and the
// permission map (modules/auth/permissions.ts) re-exports them.
export * from '@broker/engine/contract/roles';
