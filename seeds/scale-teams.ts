// `npm run seed:scale`'s CRM staff and teams (docs/specs.md#crm-configuration): 3 managers,
// 24 sales agents and 12 retention agents (emails @staff.scale.broker, the demo password), in
// 6 teams of 4 sales and 2 retention agents, two teams per manager, and one agent in two teams
// (an agent may be in several). Seeded before the leads, so the leads' agents and retention
// agents are spread over these teams. Loaded once (skipped when the staff exist).
import type postgres from 'postgres';

export const SCALE_TEAMS = 6;

export async function seedScaleTeams(tx: postgres.TransactionSql, passwordHash: string): Promise<{ teams: number; staff: number }> {
  const [{ n }] = await tx`SELECT count(*)::int AS n FROM users WHERE email LIKE '%@staff.scale.broker'`;
  if (n > 0) return { teams: 0, staff: 0 };
  const staff = await tx`
    INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified)
    SELECT s.kind || g || '@staff.scale.broker', ${passwordHash},
           (ARRAY['Nora','Omar','Paula','Quinn','Rafael','Sara','Tomas','Uma','Victor','Wendy','Xavier','Yara'])[1 + (g * 7 + s.role) % 12] || ' ' ||
           (ARRAY['Berg','Costa','Dahl','Ernst','Fischer','Gomez','Holm','Ito'])[1 + (g * 3 + s.role) % 8] || ' ' || g,
           s.role, true, true
      FROM (VALUES ('manager', 2, 3), ('sales', 5, 24), ('retention', 6, 12)) AS s(kind, role, count)
      CROSS JOIN LATERAL generate_series(1, s.count) AS g
    RETURNING id, role_id`;
  const ids = (role: number) => staff.filter((u) => u.role_id === role).map((u) => Number(u.id)).sort((a, b) => a - b);
  const [managers, sales, retention] = [ids(2), ids(5), ids(6)];
  for (let t = 0; t < SCALE_TEAMS; t++) {
    // a database seeded before the codes followed the rule keeps its teams, renamed
    await tx`UPDATE teams SET code = ${scaleTeamCode(t)} WHERE code = ${`TM-SCALE${t + 1}`} AND NOT EXISTS (SELECT 1 FROM teams WHERE code = ${scaleTeamCode(t)})`;
    const [team] = await tx`
      INSERT INTO teams (name, code, manager_id)
      VALUES (${`${['Berlin', 'Madrid', 'London', 'Milan', 'Lyon', 'Warsaw'][t]} Desk`}, ${scaleTeamCode(t)}, ${managers[t % managers.length]})
      ON CONFLICT (code) DO NOTHING RETURNING id`;
    if (!team) continue;
    const members = [...sales.slice(t * 4, t * 4 + 4), ...retention.slice(t * 2, t * 2 + 2), ...(t === 1 ? [sales[0]] : [])];
    await tx`INSERT INTO team_members (team_id, user_id) SELECT ${team.id}, unnest(${members}::bigint[]) ON CONFLICT DO NOTHING`;
  }
  await tx`INSERT INTO profiles (user_id, phone, country, city)
           SELECT id, '+49 30 ' || lpad(id::text, 7, '0'), 'Germany', 'Berlin' FROM users WHERE email LIKE '%@staff.scale.broker'
           ON CONFLICT DO NOTHING`;
  return { teams: SCALE_TEAMS, staff: staff.length };
}

/** The code of scale team `t`: the team-code rule (`TM-` and 6 characters of the generated codes' alphabet). */
export const scaleTeamCode = (t: number) => `TM-SCDSK${'23456789'[t % 8]}`;
