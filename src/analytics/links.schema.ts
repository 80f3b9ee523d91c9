import { z } from 'zod';

export const campaignLinksParams = z.object({ id: z.string() });
export const stepLinksParams = z.object({ id: z.string(), stepId: z.string() });

const count = z.number().int();

/** `GET /campaigns/:id/links` and `GET /workflows/:id/steps/:stepId/links`. */
export const linksOut = z.object({
  data: z.array(
    z.object({
      url: z.string(),
      position: count.nullable().meta({
        description:
          "0-based position among the mail's tracked links; null for links sent before positions were recorded",
      }),
      clicks: count.meta({ description: 'Click events, machine ones included' }),
      uniqueClicks: count.meta({ description: 'Emails with a click of this link' }),
      humanClicks: count.meta({ description: 'Emails with a click of this link that is not machine activity' }),
    }),
  ),
});
