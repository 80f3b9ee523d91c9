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
--> statement-breakpoint
-- Per-language variants (src/content/translations.ts): {<BCP 47 tag>: {subject, fromName, format, body,
-- source, blocks}}, each compiled like the body; null: none. An email records the language it went out
-- in (null: the default content), which the campaign report splits by.
ALTER TABLE "templates" ADD COLUMN "translations" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "translations" jsonb;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "locale" text;
