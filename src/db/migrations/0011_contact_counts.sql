CREATE TABLE "contact_counts" (
	"project_id" uuid NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_counts" ADD CONSTRAINT "contact_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_counts_project_idx" ON "contact_counts" USING btree ("project_id");--> statement-breakpoint
-- Each statement that inserts contacts adds one delta row per project (transition tables: one
-- INSERT … SELECT however many rows the statement wrote; nothing when it wrote none, as an upsert of
-- an existing contact does). Contacts never move between projects, so UPDATE needs no trigger.
CREATE OR REPLACE FUNCTION pigeon_contacts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (project_id, n)
    SELECT c.project_id, count(*) FROM pigeon_inserted_contacts c GROUP BY c.project_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Deleting a project cascades to its contacts and to its contact_counts rows: the project row is
-- gone by then, and a delta for it would break the foreign key, so none is written.
CREATE OR REPLACE FUNCTION pigeon_contacts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts (project_id, n)
    SELECT c.project_id, -count(*) FROM pigeon_deleted_contacts c
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = c.project_id)
    GROUP BY c.project_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contacts_counted_insert AFTER INSERT ON contacts
  REFERENCING NEW TABLE AS pigeon_inserted_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION pigeon_contacts_inserted();
--> statement-breakpoint
CREATE TRIGGER contacts_counted_delete AFTER DELETE ON contacts
  REFERENCING OLD TABLE AS pigeon_deleted_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION pigeon_contacts_deleted();
--> statement-breakpoint
-- The contacts that exist already. Creating the triggers above locked contacts against writes until
-- this migration commits, so no insert or delete falls between the count and the triggers.
INSERT INTO contact_counts (project_id, n) SELECT project_id, count(*) FROM contacts GROUP BY project_id;
