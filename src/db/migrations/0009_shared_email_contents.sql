CREATE TABLE "email_contents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_attachments" ALTER COLUMN "email_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ALTER COLUMN "body" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "email_attachments" ADD COLUMN "content_id" uuid;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "content_id" uuid;--> statement-breakpoint
ALTER TABLE "email_contents" ADD CONSTRAINT "email_contents_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_contents_project_idx" ON "email_contents" USING btree ("project_id");--> statement-breakpoint
ALTER TABLE "email_attachments" ADD CONSTRAINT "email_attachments_content_id_email_contents_id_fk" FOREIGN KEY ("content_id") REFERENCES "public"."email_contents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_attachments_content_idx" ON "email_attachments" USING btree ("content_id");--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_body_or_content" CHECK ("emails"."body" is not null or "emails"."content_id" is not null);