-- Send windows and local time (issue 37, src/campaigns/delivery.ts): a campaign's delivery settings
-- ({mode, spreadHours, localTime, window}; null = send now), the moment its last mail is due (filled
-- by the fan-out), each campaign mail's due moment (null = at once), and the two rules of
-- src/campaigns/delivery-window.ts as SQL functions the fan-out statement and the delivery preview
-- call per contact. Days are ISO weekday numbers (1 = Monday); null days = every day.
ALTER TABLE "campaigns" ADD COLUMN "delivery" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "delivery_ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
-- The first moment at or after t when the clocks of zone read at on one of days.
CREATE FUNCTION "pigeon_next_local"(t timestamptz, zone text, at time, days int[]) RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  select min(c) from (
    select ((((t at time zone zone)::date + d) + at) at time zone zone) as c
    from generate_series(0, 7) d
    where days is null or extract(isodow from ((t at time zone zone)::date + d))::int = any(days)
  ) x where c >= t
$$;--> statement-breakpoint
-- t when it lies inside the window [from, to) on one of days read in zone, else its next opening.
CREATE FUNCTION "pigeon_window_at"(t timestamptz, zone text, wfrom time, wto time, days int[]) RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  select case
    when (t at time zone zone)::time >= wfrom and (t at time zone zone)::time < wto
      and (days is null or extract(isodow from (t at time zone zone))::int = any(days)) then t
    else pigeon_next_local(t, zone, wfrom, days)
  end
$$;
