-- Up Migration
-- Web processes keep site settings, languages and translations in memory: a change to any of them,
-- by any writer (admin pages, seeds, psql), NOTIFYs the channel web_cache with the table's name
-- and every web process drops its copy of that table (web/app/utils/live-cache.server.ts).
-- Per statement, so a bulk import of translations sends one notification; delivered on commit.
CREATE FUNCTION notify_web_cache() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('web_cache', TG_TABLE_NAME);
  RETURN NULL;
END $$;

CREATE TRIGGER site_settings_web_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON site_settings
  FOR EACH STATEMENT EXECUTE FUNCTION notify_web_cache();
CREATE TRIGGER languages_web_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON languages
  FOR EACH STATEMENT EXECUTE FUNCTION notify_web_cache();
CREATE TRIGGER translations_web_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON translations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_web_cache();

-- Down Migration
DROP TRIGGER IF EXISTS translations_web_cache ON translations;
DROP TRIGGER IF EXISTS languages_web_cache ON languages;
DROP TRIGGER IF EXISTS site_settings_web_cache ON site_settings;
DROP FUNCTION IF EXISTS notify_web_cache();
