import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { auditChanges } from '../audit/audit.js';
import { audited, auditedCreate, auditedUpdate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { ok } from '../http/envelope.js';
import { noContent, okEnvelope, replies } from '../http/responses.js';
import { audienceCount, campaignEmails, campaignTimeline } from './report.js';
import {
  audienceCountBody,
  audienceCountOut,
  campaignBody,
  campaignEmailsOut,
  campaignEmailsQuery,
  campaignTimelineOut,
  campaignListOut,
  campaignOutSchema,
  campaignStatsOut,
  idParams,
  listCampaignsQuery,
  sendBody,
  sendCampaignOut,
  testBody,
  testSendOut,
} from './campaigns.schema.js';
import * as svc from './campaigns.service.js';
import { sendTest } from './test-send.js';
import { callerOrigin } from '../consent/origin.js';
import { winnerBody } from './experiment.schema.js';
import { pickWinner } from './winner.js';
import { deliveryPreview } from './delivery.js';
import { deliveryPreviewOut, deliveryPreviewQuery } from './delivery.schema.js';

/** Campaigns. Dashboard authentication. */
export async function campaignsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['campaigns'];

  r.post(
    '/campaigns',
    {
      schema: {
        tags,
        summary: 'Create a DRAFT campaign (403 unverified sender domain; 422 audience without its segment/condition)',
        body: campaignBody,
        response: replies({ 201: okEnvelope(campaignOutSchema) }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'campaign', {
        change: (d) => svc.createCampaign(d, projectOf(req), req.body),
      });
      return reply.code(201).send(ok(out));
    },
  );

  r.get(
    '/campaigns',
    {
      schema: {
        tags,
        summary: 'Campaigns, offset-paginated; filter by status (400 if unknown), search name/subject/from',
        querystring: listCampaignsQuery,
        response: replies({ 200: campaignListOut }),
      },
    },
    async (req) => svc.listCampaigns(deps, projectOf(req), req.query),
  );

  r.get(
    '/campaigns/:id',
    {
      schema: {
        tags,
        summary: 'One campaign with live counters',
        params: idParams,
        response: replies({ 200: campaignOutSchema }),
      },
    },
    async (req) => svc.getCampaign(deps, projectOf(req), req.params.id),
  );

  r.put(
    '/campaigns/:id',
    {
      schema: {
        tags,
        summary: 'Replace a DRAFT or SCHEDULED campaign (409 otherwise)',
        params: idParams,
        body: campaignBody,
        response: replies({ 200: campaignOutSchema }),
      },
    },
    async (req) =>
      auditedUpdate(deps, req, 'campaign', {
        load: (d) => svc.getCampaign(d, projectOf(req), req.params.id),
        change: (d) => svc.replaceCampaign(d, projectOf(req), req.params.id, req.body),
      }),
  );

  r.delete(
    '/campaigns/:id',
    {
      schema: {
        tags,
        summary: 'Delete a campaign (409 while it is being sent)',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getCampaign(d, projectOf(req), req.params.id);
        await svc.deleteCampaign(d, projectOf(req), req.params.id);
        await audit('campaign.delete', { type: 'campaign', id: before.id }, auditChanges({ name: before.name }, null));
      });
      return reply.code(204).send();
    },
  );

  r.post(
    '/campaigns/:id/duplicate',
    {
      schema: {
        tags,
        summary: 'Copy a campaign as a new DRAFT "<name> (copy)"',
        params: idParams,
        response: replies({ 201: campaignOutSchema }),
      },
    },
    async (req, reply) => {
      const out = await audited(deps, req, projectOf(req), async (d, audit) => {
        const c = await svc.duplicateCampaign(d, projectOf(req), req.params.id);
        await audit(
          'campaign.create',
          { type: 'campaign', id: c.id },
          { name: [null, c.name], copyOf: [null, req.params.id] },
        );
        return c;
      });
      return reply.code(201).send(out);
    },
  );

  r.post(
    '/campaigns/:id/send',
    {
      schema: {
        tags,
        summary: 'Send now (no scheduledFor, or a past one) or schedule a DRAFT/SCHEDULED campaign',
        params: idParams,
        body: sendBody,
        response: replies({ 200: sendCampaignOut }),
      },
    },
    async (req) => {
      const out = await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getCampaign(d, projectOf(req), req.params.id);
        const sent = await svc.sendCampaign(d, projectOf(req), req.params.id, req.body?.scheduledFor);
        const action = sent.data.status === 'SCHEDULED' ? 'campaign.schedule' : 'campaign.send';
        await audit(
          action,
          { type: 'campaign', id: sent.data.id },
          auditChanges(before, sent.data, ['status', 'scheduledFor']),
        );
        return sent;
      });
      return { ...ok(out.data), message: out.message };
    },
  );

  r.post(
    '/campaigns/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a SCHEDULED or SENDING campaign; mail already handed over stays sent',
        params: idParams,
        response: replies({ 200: campaignOutSchema }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getCampaign(d, projectOf(req), req.params.id);
        const after = await svc.cancelCampaign(d, projectOf(req), req.params.id);
        await audit('campaign.cancel', { type: 'campaign', id: after.id }, auditChanges(before, after, ['status']));
        return after;
      }),
  );

  r.post(
    '/campaigns/:id/winner',
    {
      schema: {
        tags,
        summary:
          'Pick the winning variant of a SENDING A/B test by hand; it goes to the rest once the test mail is out (409 not an A/B test, a pure split, not sending, or already chosen)',
        params: idParams,
        body: winnerBody,
        response: replies({ 200: campaignOutSchema }),
      },
    },
    async (req) => {
      const row = await audited(deps, req, projectOf(req), async (d, audit) => {
        const picked = await pickWinner(d, projectOf(req), req.params.id, req.body.key);
        await audit('campaign.pick_winner', { type: 'campaign', id: picked.id }, { winner: [null, req.body.key] });
        return picked;
      });
      return svc.getCampaign(deps, projectOf(req), row.id);
    },
  );

  r.post(
    '/campaigns/:id/test',
    {
      schema: {
        tags,
        summary: 'Send one test of the campaign to an address ([TEST] subject, not counted)',
        params: idParams,
        body: testBody,
        response: replies({ 200: testSendOut }),
      },
    },
    async (req) => {
      const out = await sendTest(
        deps,
        projectOf(req),
        req.params.id,
        req.body.email,
        callerOrigin(req),
        req.body.variant,
        req.body.locale,
      );
      return { ...ok(out.data), message: out.message };
    },
  );

  r.get(
    '/campaigns/:id/stats',
    {
      schema: {
        tags,
        summary: 'Send, delivery, open, click and bounce counts and rates of a campaign',
        params: idParams,
        response: replies({ 200: campaignStatsOut }),
      },
    },
    async (req) => svc.campaignStats(deps, projectOf(req), req.params.id),
  );

  r.get(
    '/campaigns/:id/delivery-preview',
    {
      schema: {
        tags,
        summary:
          "Mails due per hour under the campaign's delivery (send now, spread, local time, window), or under the delivery the query gives (the composer's unsaved choice), for the send curve drawn before sending",
        params: idParams,
        querystring: deliveryPreviewQuery,
        response: replies({ 200: deliveryPreviewOut }),
      },
    },
    async (req) => deliveryPreview(deps, projectOf(req), req.params.id, req.query),
  );

  r.post(
    '/campaigns/audience-count',
    {
      schema: {
        tags,
        summary: 'Eligible recipients of an audience if sent now (422 on a bad segment or condition)',
        body: audienceCountBody,
        response: replies({ 200: audienceCountOut }),
      },
    },
    async (req) => audienceCount(deps, projectOf(req), req.body),
  );

  r.get(
    '/campaigns/:id/emails',
    {
      schema: {
        tags,
        summary: 'Emails of a campaign with their status, cursor-paged',
        params: idParams,
        querystring: campaignEmailsQuery,
        response: replies({ 200: campaignEmailsOut }),
      },
    },
    async (req) => campaignEmails(deps, projectOf(req), req.params.id, req.query),
  );

  r.get(
    '/campaigns/:id/timeline',
    {
      schema: {
        tags,
        summary: 'Sends, deliveries, opens, clicks, bounces and complaints of a campaign per UTC hour',
        params: idParams,
        response: replies({ 200: campaignTimelineOut }),
      },
    },
    async (req) => campaignTimeline(deps, projectOf(req), req.params.id),
  );
}
