-- Hosted forms with double opt-in (issue 35): a form a visitor fills in on any site or on Pigeon's
-- own page (`/f/:id`) to become a contact, subscribed and in the form's topics, at once or once the
-- link of a confirmation mail is opened (double opt-in). `fields` is the form's own list of inputs
-- ({key, label, type, required, options?}); one is the `email` field. `submissions` and
-- `confirmations` count what the public endpoint took, for the dashboard.
CREATE TABLE "forms" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
  "name" text NOT NULL,
  "double_opt_in" boolean DEFAULT false NOT NULL,
  "fields" jsonb NOT NULL,
  "redirect_url" text,
  "success_message" text NOT NULL,
  -- A deleted template leaves the form with the default confirmation text.
  "confirmation_template_id" uuid REFERENCES "templates"("id") ON DELETE SET NULL,
  "from_email" text,
  "from_name" text,
  "submissions" integer DEFAULT 0 NOT NULL,
  "confirmations" integer DEFAULT 0 NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "forms_project_created_idx" ON "forms" ("project_id", "created_at");--> statement-breakpoint
-- The topics a form joins. A topic a form names cannot be deleted: DELETE /topics answers 409 naming
-- the form first (topics/users.ts), and the foreign key holds it anyway.
CREATE TABLE "form_topics" (
  "form_id" uuid NOT NULL REFERENCES "forms"("id") ON DELETE CASCADE,
  "topic_id" uuid NOT NULL REFERENCES "topics"("id"),
  CONSTRAINT "form_topics_pk" PRIMARY KEY ("form_id", "topic_id")
);--> statement-breakpoint
CREATE INDEX "form_topics_topic_idx" ON "form_topics" ("topic_id");--> statement-breakpoint
-- A double opt-in sign-up: pending until its link is opened (`confirmed_at`), at most one pending per
-- form and contact; `last_sent_at` holds back a second confirmation mail within 10 minutes;
-- `expires_at` is the expiry the newest link carries (7 days after it was sent). Pending sign-ups
-- past it are deleted by the worker's cron (forms/forms.jobs.ts).
CREATE TABLE "form_signups" (
  "id" uuid PRIMARY KEY NOT NULL,
  "project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
  "form_id" uuid NOT NULL REFERENCES "forms"("id") ON DELETE CASCADE,
  "contact_id" uuid NOT NULL REFERENCES "contacts"("id") ON DELETE CASCADE,
  "created_at" timestamp with time zone NOT NULL,
  "last_sent_at" timestamp with time zone NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "confirmed_at" timestamp with time zone
);--> statement-breakpoint
CREATE UNIQUE INDEX "form_signups_pending_uq" ON "form_signups" ("form_id", "contact_id") WHERE "confirmed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "form_signups_expiry_idx" ON "form_signups" ("expires_at") WHERE "confirmed_at" IS NULL;--> statement-breakpoint
-- Deleting a contact finds its sign-ups by this index.
CREATE INDEX "form_signups_contact_idx" ON "form_signups" ("contact_id");
