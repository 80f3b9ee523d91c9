import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../db/tx.js';
import type { campaigns } from '../db/schema.js';

type CampaignRow = typeof campaigns.$inferSelect;

/** One language's share of a translated campaign (`GET /campaigns/:id/stats` `languages`). */
export const languageStatsOut = z.object({
  locale: z
    .string()
    .nullable()
    .meta({ description: 'The translation (BCP 47 tag); null: the default content, for everyone else' }),
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
});
export type LanguageFigures = z.infer<typeof languageStatsOut>;

/**
 * A translated campaign's counts by the language each mail went out in (`emails.locale`, set by the
 * fan-out): the translations in their stored order, then the default content. Null for a campaign
 * without translations.
 */
export async function languageFigures(db: Tx, c: CampaignRow): Promise<LanguageFigures[] | null> {
  const tags = Object.keys(c.translations ?? {});
  if (!tags.length) return null;
  const r = await db.execute<{ locale: string | null } & Omit<LanguageFigures, 'locale'>>(sql`
    select locale, count(*) filter (where sent_at is not null)::int as sent,
      count(*) filter (where delivered_at is not null)::int as delivered,
      count(*) filter (where opened_at is not null)::int as opened,
      count(*) filter (where clicked_at is not null)::int as clicked,
      count(*) filter (where status = 'BOUNCED')::int as bounced
    from emails where campaign_id = ${c.id}::uuid and project_id = ${c.projectId}
    group by locale`);
  const zero = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0 };
  return [...tags, null].map((locale) => ({ ...zero, ...r.rows.find((x) => x.locale === locale), locale }));
}
