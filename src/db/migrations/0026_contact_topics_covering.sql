-- The topic rule (topics/membership.ts inTopicSql) reads one contact's choice per contact of a
-- campaign's fan-out: with `subscribed` in the primary key's index that read is an index-only scan,
-- no heap page per contact (an opt-in topic that most contacts joined found a row, and fetched its
-- page, for each of them). The table only holds explicit choices, so the rebuild is small.
ALTER TABLE "contact_topics" DROP CONSTRAINT "contact_topics_pk";--> statement-breakpoint
ALTER TABLE "contact_topics" ADD CONSTRAINT "contact_topics_pk" PRIMARY KEY ("topic_id", "contact_id") INCLUDE ("subscribed");
