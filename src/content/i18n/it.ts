import type { Catalogue } from './en.js';

/**
 * Italian ("tu", as Italian newsletters write), for the keys of en.ts. Sentences about the reader
 * name their address or subscription, so they need no gendered agreement.
 */
export const it: Catalogue = {
  'footer.reason': 'Ricevi questa email perché il tuo indirizzo è iscritto alla nostra lista.',
  'footer.reasonTopic': 'Ricevi questa email perché il tuo indirizzo è iscritto a {topic}.',
  'footer.unsubscribe': 'Annulla l’iscrizione',
  'footer.unsubscribeTopic': 'Annulla l’iscrizione a {topic}',
  'footer.preferences': 'Gestisci le preferenze',

  'page.badLinkTitle': 'Questo link non funziona',
  'page.badLink':
    'Il link è incompleto o non è più valido. Aprilo di nuovo dall’email oppure chiedi al mittente di aggiornare le tue preferenze.',

  'unsubscribe.title': 'Annulla l’iscrizione',
  'unsubscribe.question': 'Annullare l’iscrizione di {email} alle email di {project}?',
  'unsubscribe.button': 'Annulla l’iscrizione',
  'unsubscribe.instead': 'Scegli invece quali email ricevere',
  'unsubscribe.doneTitle': 'Iscrizione annullata',
  'unsubscribe.alreadyTitle': 'La tua iscrizione è già annullata',
  'unsubscribe.done': 'L’iscrizione di {email} a {project} è stata annullata.',
  'unsubscribe.changedMind': 'Hai cambiato idea? Gestisci le tue preferenze',

  'subscribe.title': 'Iscriviti',
  'subscribe.question': 'Iscrivere {email} alle email di {project}?',
  'subscribe.button': 'Iscriviti',
  'subscribe.doneTitle': 'Iscrizione attivata',
  'subscribe.alreadyTitle': 'La tua iscrizione è già attiva',
  'subscribe.done': 'L’indirizzo {email} è iscritto a {project}.',
  'subscribe.choose': 'Scegli quali email ricevere',

  'topic.title': 'Annulla l’iscrizione a {topic}',
  'topic.question':
    'Non inviare più email di {topic} a {email}? Le altre iscrizioni alle email di {project} restano attive.',
  'topic.button': 'Annulla l’iscrizione a {topic}',
  'topic.doneTitle': 'Iscrizione a {topic} annullata',
  'topic.alreadyTitle': 'Non ricevi più {topic}',
  'topic.done': '{email} non riceverà più email di {topic} da {project}. Le altre iscrizioni restano attive.',
  'topic.goneTitle': 'Questo argomento non esiste più',
  'topic.gone': '{project} non invia più email su questo argomento.',
  'topic.manageAll': 'Gestisci tutte le tue preferenze email',

  'prefs.title': 'Le tue preferenze email',
  'prefs.intro': 'Scegli quali email riceve {email} da {project}.',
  'prefs.unsubscribedNote':
    'La tua iscrizione è annullata: non ricevi email da {project}, tranne quelle che richiedi tu, come le ricevute o il ripristino della password.',
  'prefs.topics': 'Argomenti',
  'prefs.save': 'Salva le preferenze',
  'prefs.subscribeTicked': 'Iscrivimi agli argomenti selezionati',
  'prefs.pausedTitle': 'In pausa',
  'prefs.pausedUntil': 'Le email sono in pausa fino al {date}.',
  'prefs.resume': 'Riprendi subito le email',
  'prefs.breakTitle': 'Prenditi una pausa',
  'prefs.pauseFor': 'Metti in pausa newsletter e annunci per',
  'prefs.pause': 'Metti in pausa le email',
  'prefs.snooze2w': '2 settimane',
  'prefs.snooze1m': '1 mese',
  'prefs.snooze3m': '3 mesi',
  'prefs.everythingTitle': 'Annulla tutte le iscrizioni',
  'prefs.everythingText':
    'Non ricevere più newsletter e annunci di {project}. Le email relative al tuo account, come le ricevute, continueranno ad arrivare.',
  'prefs.everythingButton': 'Annulla tutte le iscrizioni',
  'prefs.everything': 'Tutto',
  'prefs.subscribeAll': 'Iscrivimi di nuovo a tutto',
  'prefs.subscribeAgain': 'Iscrivimi di nuovo',
  'prefs.languageTitle': 'Lingua',
  'prefs.languageLabel': 'Lingua di queste pagine e delle email disponibili in più lingue',
  'prefs.languageSave': 'Salva la lingua',
  'prefs.savedNote': 'Le tue preferenze sono state salvate.',
  'prefs.pausedNote': 'Le email sono in pausa per {duration}.',
  'prefs.resumedNote': 'Le email non sono più in pausa.',
  'prefs.unsubscribedAllNote': 'Tutte le tue iscrizioni sono state annullate.',
  'prefs.subscribedNote': 'La tua iscrizione è di nuovo attiva.',
  'prefs.languageNote': 'La tua lingua è stata salvata.',
  'prefs.snoozeError': 'Scegli per quanto tempo mettere in pausa le email: 2 settimane, 1 mese o 3 mesi.',
  'prefs.languageError': 'Scegli una delle lingue dell’elenco.',
  'prefs.formError': 'Non è stato possibile leggere il modulo. Non è stato modificato nulla; riprova.',

  'confirm.title': 'Conferma la tua iscrizione',
  'confirm.text': 'Premi il pulsante per confermare che vuoi ricevere email da {project}.',
  'confirm.button': 'Conferma la mia iscrizione',
  'confirm.doneTitle': 'Iscrizione confermata',
  'confirm.done': 'La tua iscrizione è confermata.',
  'confirm.expiredTitle': 'Questo link è scaduto',
  'confirm.expired':
    'I link di conferma sono validi per {days} giorni e questo è più vecchio. Non è stato modificato nulla.',
  'confirm.signUpAgain': '{link} per ricevere un nuovo link.',
  'confirm.signUpAgainLink': 'Iscriviti di nuovo',
  'confirm.notFoundTitle': 'Pagina non trovata',
  'confirm.notFound':
    'A questo indirizzo non c’è alcun modulo di iscrizione né link di conferma. Controlla il link che hai seguito.',

  'confirmMail.subject': 'Conferma la tua iscrizione a {project}',
  'confirmMail.hello': 'Ciao,',
  'confirmMail.text':
    'Qualcuno, probabilmente tu, si è iscritto con questo indirizzo per ricevere email da {project}. Conferma che sei stato tu:',
  'confirmMail.button': 'Conferma la mia iscrizione',
  'confirmMail.expiry':
    'Il link vale {days} giorni. Se non ti sei iscritto, ignora questa email: non riceverai altro da noi.',
};
