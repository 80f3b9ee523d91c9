import type { Catalogue } from './en.js';

/** Dutch ("je", as Dutch newsletters write), for the keys of en.ts. */
export const nl: Catalogue = {
  'footer.reason': 'Je ontvangt deze e-mail omdat je je hebt aangemeld voor onze lijst.',
  'footer.reasonTopic': 'Je ontvangt deze e-mail omdat je je hebt aangemeld voor {topic}.',
  'footer.unsubscribe': 'Afmelden',
  'footer.unsubscribeTopic': 'Afmelden voor {topic}',
  'footer.preferences': 'Voorkeuren beheren',

  'page.badLinkTitle': 'Deze link werkt niet',
  'page.badLink':
    'De link is onvolledig of niet meer geldig. Open hem opnieuw vanuit de e-mail, of vraag de afzender om je voorkeuren aan te passen.',

  'unsubscribe.title': 'Afmelden',
  'unsubscribe.question': '{email} afmelden voor e-mails van {project}?',
  'unsubscribe.button': 'Afmelden',
  'unsubscribe.instead': 'Kies liever welke e-mails je wilt ontvangen',
  'unsubscribe.doneTitle': 'Afgemeld',
  'unsubscribe.alreadyTitle': 'Je bent al afgemeld',
  'unsubscribe.done': '{email} is afgemeld voor {project}.',
  'unsubscribe.changedMind': 'Van gedachten veranderd? Beheer je voorkeuren',

  'subscribe.title': 'Aanmelden',
  'subscribe.question': '{email} aanmelden voor e-mails van {project}?',
  'subscribe.button': 'Aanmelden',
  'subscribe.doneTitle': 'Aangemeld',
  'subscribe.alreadyTitle': 'Je bent al aangemeld',
  'subscribe.done': '{email} is aangemeld voor {project}.',
  'subscribe.choose': 'Kies welke e-mails je wilt ontvangen',

  'topic.title': 'Afmelden voor {topic}',
  'topic.question':
    'Geen e-mails over {topic} meer sturen naar {email}? Andere e-mails van {project} waarvoor je je hebt aangemeld, blijf je ontvangen.',
  'topic.button': 'Afmelden voor {topic}',
  'topic.doneTitle': 'Afgemeld voor {topic}',
  'topic.alreadyTitle': 'Je ontvangt {topic} niet meer',
  'topic.done':
    '{email} ontvangt geen e-mails over {topic} meer van {project}. Andere e-mails waarvoor je je hebt aangemeld, blijf je ontvangen.',
  'topic.goneTitle': 'Dit onderwerp bestaat niet meer',
  'topic.gone': '{project} verstuurt geen e-mails over dit onderwerp meer.',
  'topic.manageAll': 'Al je e-mailvoorkeuren beheren',

  'prefs.title': 'Je e-mailvoorkeuren',
  'prefs.intro': 'Kies welke e-mails {email} van {project} ontvangt.',
  'prefs.unsubscribedNote':
    'Je bent afgemeld: je ontvangt geen e-mails van {project}, behalve e-mails waar je zelf om vraagt, zoals bonnetjes of het opnieuw instellen van je wachtwoord.',
  'prefs.topics': 'Onderwerpen',
  'prefs.save': 'Voorkeuren opslaan',
  'prefs.subscribeTicked': 'Aanmelden voor de aangevinkte onderwerpen',
  'prefs.pausedTitle': 'Gepauzeerd',
  'prefs.pausedUntil': 'E-mails zijn gepauzeerd tot {date}.',
  'prefs.resume': 'E-mails nu hervatten',
  'prefs.breakTitle': 'Even pauze',
  'prefs.pauseFor': 'Nieuwsbrieven en aankondigingen pauzeren voor',
  'prefs.pause': 'E-mails pauzeren',
  'prefs.snooze2w': '2 weken',
  'prefs.snooze1m': '1 maand',
  'prefs.snooze3m': '3 maanden',
  'prefs.everythingTitle': 'Overal voor afmelden',
  'prefs.everythingText':
    'Ontvang geen nieuwsbrieven en aankondigingen meer van {project}. E-mails over je account, zoals bonnetjes, blijven gewoon komen.',
  'prefs.everythingButton': 'Overal voor afmelden',
  'prefs.everything': 'Alles',
  'prefs.subscribeAll': 'Weer overal voor aanmelden',
  'prefs.subscribeAgain': 'Opnieuw aanmelden',
  'prefs.languageTitle': 'Taal',
  'prefs.languageLabel': 'Taal van deze pagina’s en van e-mails die in meerdere talen bestaan',
  'prefs.languageSave': 'Taal opslaan',
  'prefs.savedNote': 'Je voorkeuren zijn opgeslagen.',
  'prefs.pausedNote': 'E-mails zijn gepauzeerd voor {duration}.',
  'prefs.resumedNote': 'E-mails zijn niet meer gepauzeerd.',
  'prefs.unsubscribedAllNote': 'Je bent overal voor afgemeld.',
  'prefs.subscribedNote': 'Je bent weer aangemeld.',
  'prefs.languageNote': 'Je taal is opgeslagen.',
  'prefs.snoozeError': 'Kies hoelang je e-mails wilt pauzeren: 2 weken, 1 maand of 3 maanden.',
  'prefs.languageError': 'Kies een van de talen uit de lijst.',
  'prefs.formError': 'Het formulier kon niet worden gelezen. Er is niets gewijzigd; probeer het opnieuw.',

  'confirm.title': 'Bevestig je aanmelding',
  'confirm.text': 'Klik op de knop om te bevestigen dat je e-mails van {project} wilt ontvangen.',
  'confirm.button': 'Mijn aanmelding bevestigen',
  'confirm.doneTitle': 'Aanmelding bevestigd',
  'confirm.done': 'Je aanmelding is bevestigd.',
  'confirm.expiredTitle': 'Deze link is verlopen',
  'confirm.expired': 'Bevestigingslinks zijn {days} dagen geldig, en deze is ouder. Er is niets gewijzigd.',
  'confirm.signUpAgain': '{link} om een nieuwe link te krijgen.',
  'confirm.signUpAgainLink': 'Meld je opnieuw aan',
  'confirm.notFoundTitle': 'Pagina niet gevonden',
  'confirm.notFound':
    'Op dit adres staat geen aanmeldformulier of bevestigingslink. Controleer de link die je hebt gevolgd.',

  'confirmMail.subject': 'Bevestig je aanmelding bij {project}',
  'confirmMail.hello': 'Hallo,',
  'confirmMail.text':
    'Iemand, waarschijnlijk jij, heeft zich met dit adres aangemeld om e-mails van {project} te ontvangen. Bevestig dat jij het was:',
  'confirmMail.button': 'Mijn aanmelding bevestigen',
  'confirmMail.expiry':
    'De link is {days} dagen geldig. Heb je je niet aangemeld? Negeer deze e-mail dan: je ontvangt verder niets van ons.',
};
