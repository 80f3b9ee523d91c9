-- The consent log (issue 35): every change of a contact's subscription or of a topic membership, with
-- where it came from, written in the transaction of the change by src/consent/consent.ts alone. It is
-- the record that shows when and how someone agreed to receive mail (GDPR art. 7(1); Gmail's and
-- Yahoo's bulk-sender rules), so it keeps `topic_id` and `form_id` as plain ids: deleting a topic or a
-- form leaves the history. Erasing a contact erases its log (ON DELETE CASCADE).
CREATE TABLE "consent_events" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
  "contact_id" uuid NOT NULL REFERENCES "contacts"("id") ON DELETE CASCADE,
  "topic_id" uuid,
  "action" text NOT NULL,
  "source" text NOT NULL,
  "form_id" uuid,
  "ip" text,
  "user_agent" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "consent_events_action" CHECK ("action" IN ('subscribed', 'unsubscribed', 'joined', 'left', 'confirmed', 'snoozed')),
  CONSTRAINT "consent_events_source" CHECK ("source" IN ('api', 'track', 'import', 'form', 'preference-centre', 'one-click', 'complaint', 'bounce', 'dashboard', 'workflow'))
);--> statement-breakpoint
-- GET /contacts/:id/consent: a contact's entries newest first (UUIDv7 ids sort by time).
CREATE INDEX "consent_events_contact_idx" ON "consent_events" ("contact_id", "id");
