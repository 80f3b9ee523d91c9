-- Event webhooks leave Graphile's one-job-per-delivery queues (one attempt at a time per endpoint) for
-- the worker's dispatcher (src/webhook-endpoints/dispatch): deliveries are ordered per subject, run in
-- parallel across subjects up to the endpoint's `concurrency`, and one worker process at a time holds
-- an endpoint by a lease.
ALTER TABLE "webhook_endpoints" ADD COLUMN "concurrency" smallint DEFAULT 8 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_concurrency_range" CHECK ("concurrency" BETWEEN 1 AND 64);--> statement-breakpoint
-- What deliveries are ordered by: the email, else the contact, else the campaign the event is about
-- (null: the delivery is its own subject).
ALTER TABLE "webhook_deliveries" ADD COLUMN "subject" text;--> statement-breakpoint
-- The dispatcher's reads: an endpoint's pending deliveries in event order, and whether any is due.
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("endpoint_id", "id") WHERE "status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at") WHERE "status" = 'PENDING';--> statement-breakpoint
-- Wakes the dispatchers (they LISTEN) when a delivery is queued; PostgreSQL sends a transaction's
-- identical notifications once, at commit, so a statement that queues many costs one per endpoint.
CREATE FUNCTION "webhook_deliveries_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pigeon_webhook_deliveries', NEW.endpoint_id::text);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_notify" AFTER INSERT ON "webhook_deliveries"
  FOR EACH ROW WHEN (NEW.status = 'PENDING' AND NEW.next_attempt_at IS NOT NULL) EXECUTE FUNCTION "webhook_deliveries_notify"();
