-- A project's brand colour (issue 35): the accent of the pages its readers see without a login (the
-- preference centre, the unsubscribe pages, hosted forms). `#rrggbb`; null draws Pigeon's default.
-- web/public-page.ts keeps every pairing readable (WCAG 2.2 AA) whatever colour is picked.
ALTER TABLE "projects" ADD COLUMN "brand_color" text CHECK ("brand_color" ~ '^#[0-9a-fA-F]{6}$');
