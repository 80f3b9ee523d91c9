-- Subscription topics (issue 35): a project's lists a contact joins or leaves one by one, under the
-- master switch `contacts.subscribed`. An `opt-out` topic holds every contact except those who left it,
-- an `opt-in` topic only those who joined: so `contact_topics` holds only explicit choices, and a new
-- opt-out topic costs no row per contact (src/topics/membership.ts is the rule).
CREATE TABLE "topics" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
  "name" text NOT NULL,
  "description" text,
  "subscription_default" text NOT NULL,
  "public" boolean DEFAULT true NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "topics_subscription_default" CHECK ("subscription_default" IN ('opt-in', 'opt-out'))
);--> statement-breakpoint
-- Names are unique per project whatever their case: the API and the CSV import accept a name for an id.
CREATE UNIQUE INDEX "topics_project_name_uq" ON "topics" ("project_id", lower("name"));--> statement-breakpoint
CREATE TABLE "contact_topics" (
  "topic_id" uuid NOT NULL REFERENCES "topics"("id") ON DELETE CASCADE,
  "contact_id" uuid NOT NULL REFERENCES "contacts"("id") ON DELETE CASCADE,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
  "subscribed" boolean NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "contact_topics_pk" PRIMARY KEY ("topic_id", "contact_id")
);--> statement-breakpoint
-- A contact's topics (GET /contacts/:id); the primary key serves a topic's members.
CREATE INDEX "contact_topics_contact_idx" ON "contact_topics" ("contact_id");
