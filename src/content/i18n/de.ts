import type { Catalogue } from './en.js';

/** German (formal "Sie"), for the keys of en.ts. */
export const de: Catalogue = {
  'footer.reason': 'Sie erhalten diese E-Mail, weil Sie sich für unsere Liste angemeldet haben.',
  'footer.reasonTopic': 'Sie erhalten diese E-Mail, weil Sie {topic} abonniert haben.',
  'footer.unsubscribe': 'Abmelden',
  'footer.unsubscribeTopic': 'Von {topic} abmelden',
  'footer.preferences': 'Einstellungen verwalten',

  'page.badLinkTitle': 'Dieser Link funktioniert nicht',
  'page.badLink':
    'Der Link ist unvollständig oder nicht mehr gültig. Öffnen Sie ihn erneut aus der E-Mail oder bitten Sie den Absender, Ihre Einstellungen zu ändern.',

  'unsubscribe.title': 'Abmelden',
  'unsubscribe.question': '{email} von den E-Mails von {project} abmelden?',
  'unsubscribe.button': 'Abmelden',
  'unsubscribe.instead': 'Stattdessen auswählen, welche E-Mails Sie erhalten',
  'unsubscribe.doneTitle': 'Abgemeldet',
  'unsubscribe.alreadyTitle': 'Sie sind bereits abgemeldet',
  'unsubscribe.done': '{email} ist von {project} abgemeldet.',
  'unsubscribe.changedMind': 'Doch anders entschieden? Einstellungen verwalten',

  'subscribe.title': 'Anmelden',
  'subscribe.question': '{email} für die E-Mails von {project} anmelden?',
  'subscribe.button': 'Anmelden',
  'subscribe.doneTitle': 'Angemeldet',
  'subscribe.alreadyTitle': 'Sie sind bereits angemeldet',
  'subscribe.done': '{email} ist für {project} angemeldet.',
  'subscribe.choose': 'Auswählen, welche E-Mails Sie erhalten',

  'topic.title': 'Von {topic} abmelden',
  'topic.question':
    'Keine E-Mails zu {topic} mehr an {email} senden? Andere E-Mails von {project}, die Sie abonniert haben, erhalten Sie weiterhin.',
  'topic.button': 'Von {topic} abmelden',
  'topic.doneTitle': 'Von {topic} abgemeldet',
  'topic.alreadyTitle': 'Sie erhalten {topic} nicht mehr',
  'topic.done':
    '{email} erhält keine E-Mails zu {topic} mehr von {project}. Andere E-Mails, die Sie abonniert haben, erhalten Sie weiterhin.',
  'topic.goneTitle': 'Dieses Thema gibt es nicht mehr',
  'topic.gone': '{project} versendet keine E-Mails zu diesem Thema mehr.',
  'topic.manageAll': 'Alle E-Mail-Einstellungen verwalten',

  'prefs.title': 'Ihre E-Mail-Einstellungen',
  'prefs.intro': 'Wählen Sie aus, welche E-Mails {email} von {project} erhält.',
  'prefs.unsubscribedNote':
    'Sie sind abgemeldet: Von {project} erhalten Sie nur noch E-Mails, die Sie selbst anfordern, etwa Belege oder das Zurücksetzen Ihres Passworts.',
  'prefs.topics': 'Themen',
  'prefs.save': 'Einstellungen speichern',
  'prefs.subscribeTicked': 'Die ausgewählten Themen abonnieren',
  'prefs.pausedTitle': 'Pausiert',
  'prefs.pausedUntil': 'E-Mails sind bis zum {date} pausiert.',
  'prefs.resume': 'E-Mails jetzt wieder erhalten',
  'prefs.breakTitle': 'Eine Pause einlegen',
  'prefs.pauseFor': 'Newsletter und Ankündigungen pausieren für',
  'prefs.pause': 'E-Mails pausieren',
  'prefs.snooze2w': '2 Wochen',
  'prefs.snooze1m': '1 Monat',
  'prefs.snooze3m': '3 Monate',
  'prefs.everythingTitle': 'Von allem abmelden',
  'prefs.everythingText':
    'Alle Newsletter und Ankündigungen von {project} abbestellen. E-Mails zu Ihrem Konto, etwa Belege, erhalten Sie weiterhin.',
  'prefs.everythingButton': 'Von allem abmelden',
  'prefs.everything': 'Alles',
  'prefs.subscribeAll': 'Wieder alles abonnieren',
  'prefs.subscribeAgain': 'Wieder anmelden',
  'prefs.languageTitle': 'Sprache',
  'prefs.languageLabel': 'Sprache dieser Seiten und von E-Mails, die es in mehreren Sprachen gibt',
  'prefs.languageSave': 'Sprache speichern',
  'prefs.savedNote': 'Ihre Einstellungen sind gespeichert.',
  'prefs.pausedNote': 'E-Mails sind für {duration} pausiert.',
  'prefs.resumedNote': 'E-Mails sind nicht mehr pausiert.',
  'prefs.unsubscribedAllNote': 'Sie sind von allem abgemeldet.',
  'prefs.subscribedNote': 'Sie sind wieder angemeldet.',
  'prefs.languageNote': 'Ihre Sprache ist gespeichert.',
  'prefs.snoozeError': 'Wählen Sie, wie lange die E-Mails pausieren sollen: 2 Wochen, 1 Monat oder 3 Monate.',
  'prefs.languageError': 'Wählen Sie eine der Sprachen aus der Liste.',
  'prefs.formError':
    'Das Formular konnte nicht gelesen werden. Es wurde nichts geändert; bitte versuchen Sie es erneut.',

  'confirm.title': 'Anmeldung bestätigen',
  'confirm.text':
    'Klicken Sie auf die Schaltfläche, um zu bestätigen, dass Sie E-Mails von {project} erhalten möchten.',
  'confirm.button': 'Mein Abonnement bestätigen',
  'confirm.doneTitle': 'Anmeldung bestätigt',
  'confirm.done': 'Ihr Abonnement ist bestätigt.',
  'confirm.expiredTitle': 'Dieser Link ist abgelaufen',
  'confirm.expired': 'Bestätigungslinks gelten {days} Tage, und dieser ist älter. Es wurde nichts geändert.',
  'confirm.signUpAgain': '{link}, um einen neuen Link zu erhalten.',
  'confirm.signUpAgainLink': 'Melden Sie sich erneut an',
  'confirm.notFoundTitle': 'Seite nicht gefunden',
  'confirm.notFound':
    'Unter dieser Adresse gibt es kein Anmeldeformular und keinen Bestätigungslink. Prüfen Sie den Link, dem Sie gefolgt sind.',

  'confirmMail.subject': 'Bestätigen Sie Ihr Abonnement von {project}',
  'confirmMail.hello': 'Guten Tag,',
  'confirmMail.text':
    'Jemand, wahrscheinlich Sie, hat sich mit dieser Adresse angemeldet, um E-Mails von {project} zu erhalten. Bitte bestätigen Sie, dass Sie es waren:',
  'confirmMail.button': 'Mein Abonnement bestätigen',
  'confirmMail.expiry':
    'Der Link gilt {days} Tage. Wenn Sie sich nicht angemeldet haben, ignorieren Sie diese E-Mail: Sie erhalten dann nichts weiter von uns.',
};
