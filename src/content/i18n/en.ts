/**
 * English: the key set of every message catalogue (src/content/locale.ts). A message is plain text;
 * `{name}` marks a value the caller fills in ({@link formatMessage}, {@link formatHtml} of
 * locale.ts), and every language must use the same names (locale.test.ts checks it). Each other
 * language is a {@link Catalogue}, so a key missing or added there is a type error.
 *
 * Groups: `footer.*` the automatic footer of marketing mail (render.ts) and the labels of the blocks
 * footer; `page.*` what every hosted page shares; `unsubscribe.*`, `subscribe.*`, `topic.*` the
 * one-click pages (subscription.routes.ts); `prefs.*` the preference centre (preferences.view.ts);
 * `confirm.*` the double opt-in pages of hosted forms (forms/html.ts); `confirmMail.*` the default
 * confirmation mail of a form without a template (forms/signup.ts).
 */
export const en = {
  'footer.reason': 'You received this email because you subscribed to our list.',
  'footer.reasonTopic': 'You received this email because you subscribed to {topic}.',
  'footer.unsubscribe': 'Unsubscribe',
  'footer.unsubscribeTopic': 'Unsubscribe from {topic}',
  'footer.preferences': 'Manage preferences',

  'page.badLinkTitle': 'This link does not work',
  'page.badLink':
    'The link is incomplete or no longer valid. Open it again from the email, or ask the sender to update your preferences.',

  'unsubscribe.title': 'Unsubscribe',
  'unsubscribe.question': 'Unsubscribe {email} from emails of {project}?',
  'unsubscribe.button': 'Unsubscribe',
  'unsubscribe.instead': 'Choose which emails to get instead',
  'unsubscribe.doneTitle': 'Unsubscribed',
  'unsubscribe.alreadyTitle': 'You are already unsubscribed',
  'unsubscribe.done': '{email} is unsubscribed from {project}.',
  'unsubscribe.changedMind': 'Changed your mind? Manage your preferences',

  'subscribe.title': 'Subscribe',
  'subscribe.question': 'Subscribe {email} to emails of {project}?',
  'subscribe.button': 'Subscribe',
  'subscribe.doneTitle': 'Subscribed',
  'subscribe.alreadyTitle': 'You are already subscribed',
  'subscribe.done': '{email} is subscribed to {project}.',
  'subscribe.choose': 'Choose which emails to get',

  'topic.title': 'Unsubscribe from {topic}',
  'topic.question': 'Stop sending {topic} emails to {email}? Other emails of {project} you subscribed to keep coming.',
  'topic.button': 'Unsubscribe from {topic}',
  'topic.doneTitle': 'Unsubscribed from {topic}',
  'topic.alreadyTitle': 'You no longer get {topic}',
  'topic.done': '{email} gets no more {topic} emails from {project}. Other emails you subscribed to keep coming.',
  'topic.goneTitle': 'This topic is gone',
  'topic.gone': '{project} no longer sends emails of this topic.',
  'topic.manageAll': 'Manage all your email preferences',

  'prefs.title': 'Your email preferences',
  'prefs.intro': 'Choose which emails {email} gets from {project}.',
  'prefs.unsubscribedNote':
    'You are unsubscribed: you get no emails from {project} except the ones you ask for, such as receipts or password resets.',
  'prefs.topics': 'Topics',
  'prefs.save': 'Save preferences',
  'prefs.subscribeTicked': 'Subscribe to the ticked topics',
  'prefs.pausedTitle': 'Paused',
  'prefs.pausedUntil': 'Emails are paused until {date}.',
  'prefs.resume': 'Resume emails now',
  'prefs.breakTitle': 'Take a break',
  'prefs.pauseFor': 'Pause newsletters and announcements for',
  'prefs.pause': 'Pause emails',
  'prefs.snooze2w': '2 weeks',
  'prefs.snooze1m': '1 month',
  'prefs.snooze3m': '3 months',
  'prefs.everythingTitle': 'Unsubscribe from everything',
  'prefs.everythingText':
    'Stop every newsletter and announcement of {project}. Emails about your account, such as receipts, still arrive.',
  'prefs.everythingButton': 'Unsubscribe from everything',
  'prefs.everything': 'Everything',
  'prefs.subscribeAll': 'Subscribe to everything again',
  'prefs.subscribeAgain': 'Subscribe again',
  'prefs.languageTitle': 'Language',
  'prefs.languageLabel': 'Language of these pages and of emails that come in several languages',
  'prefs.languageSave': 'Save language',
  'prefs.savedNote': 'Your preferences are saved.',
  'prefs.pausedNote': 'Emails are paused for {duration}.',
  'prefs.resumedNote': 'Emails are no longer paused.',
  'prefs.unsubscribedAllNote': 'You are unsubscribed from everything.',
  'prefs.subscribedNote': 'You are subscribed again.',
  'prefs.languageNote': 'Your language is saved.',
  'prefs.snoozeError': 'Choose how long to pause emails: 2 weeks, 1 month or 3 months.',
  'prefs.languageError': 'Choose one of the languages in the list.',
  'prefs.formError': 'That form could not be read. Nothing was changed; please try again.',

  'confirm.title': 'Confirm your sign-up',
  'confirm.text': 'Press the button to confirm that you want to get mail from {project}.',
  'confirm.button': 'Confirm my subscription',
  'confirm.doneTitle': 'Sign-up confirmed',
  'confirm.done': 'Your subscription is confirmed.',
  'confirm.expiredTitle': 'This link has expired',
  'confirm.expired': 'Confirmation links work for {days} days, and this one is older. Nothing was changed.',
  'confirm.signUpAgain': '{link} to get a new link.',
  'confirm.signUpAgainLink': 'Sign up again',
  'confirm.notFoundTitle': 'Page not found',
  'confirm.notFound': 'There is no sign-up form or confirmation link at this address. Check the link you followed.',

  'confirmMail.subject': 'Confirm your subscription to {project}',
  'confirmMail.hello': 'Hello,',
  'confirmMail.text':
    'Someone, probably you, signed up with this address to get email from {project}. Please confirm that it was you:',
  'confirmMail.button': 'Confirm my subscription',
  'confirmMail.expiry':
    'The link works for {days} days. If you did not sign up, ignore this email: you will get nothing more from us.',
};

/** A key of the message catalogue. */
export type MessageKey = keyof typeof en;

/** One language's messages: every key of {@link en}, no other. */
export type Catalogue = Record<MessageKey, string>;
