-- Up Migration
-- Whether a session is live: one rule, read by the web app on every request
-- (session.server.ts findSession) and by the engine when a realtime stream opens and while it
-- stays open (engine/src/http/realtime.ts), so a session that ends — revoked, expired, its user
-- deactivated or deleted, or a login-as session whose staff member lost the right to it
-- (docs/specs.md#login-as) — ends its streams too.
--
-- p_ip: the request's address for the staff IP whitelist; null where the caller does not know it
-- (the engine), which checks the address the session signed in from.
-- Login-as roles (1, 2, 6) are the permission map's entry for /admin/customers/login-as/:id
-- (web/test/auth/login-as.test.ts holds the two together).
CREATE FUNCTION session_live(p_session bigint, p_ip inet) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1
      FROM sessions s JOIN users u ON u.id = s.user_id
      LEFT JOIN users i ON i.id = s.impersonator_id
     WHERE s.id = p_session AND s.revoked_at IS NULL AND s.expires_at > now()
       AND u.deleted_at IS NULL AND u.is_active
       -- a login-as session: its staff member still active, of a login-as role, with the customer in scope,
       -- and the staff session that opened it not revoked
       AND (s.impersonator_id IS NULL
            OR (i.deleted_at IS NULL AND i.is_active AND i.role_id IN (1, 2, 6) AND u.role_id = 3
                AND (i.role_id IN (1, 2) OR EXISTS (SELECT 1 FROM leads l WHERE l.user_id = u.id AND l.ret_id = i.id))
                AND (s.parent_id IS NULL OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_id AND p.revoked_at IS NULL))))
       -- the staff IP whitelist of the staff member behind the session
       AND ((s.impersonator_id IS NULL AND u.role_id = 3)
            OR NOT EXISTS (SELECT 1 FROM user_ip_whitelist w WHERE w.user_id = coalesce(s.impersonator_id, s.user_id))
            OR EXISTS (SELECT 1 FROM user_ip_whitelist w WHERE w.user_id = coalesce(s.impersonator_id, s.user_id)
                          AND coalesce(p_ip, s.ip) <<= w.ip_address)))
$$;

-- Down Migration
DROP FUNCTION IF EXISTS session_live(bigint, inet);
