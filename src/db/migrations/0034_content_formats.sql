-- Body formats (issue 38, src/content/format.ts): html as written (every existing row), mjml, or blocks
-- (the visual editor's document). `body` keeps the HTML that is sent, compiled at save, so delivery is
-- unchanged; `source` is the MJML (written, or generated from the blocks), `blocks` the document.
ALTER TABLE "templates" ADD COLUMN "format" text DEFAULT 'html' NOT NULL;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "blocks" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "format" text DEFAULT 'html' NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "blocks" jsonb;--> statement-breakpoint
-- The global style a project's new visual-editor documents start from; null: the defaults.
ALTER TABLE "projects" ADD COLUMN "email_style" jsonb;
