import type { Catalogue } from './en.js';

/**
 * Spanish ("usted", understood alike in Spain and Latin America), for the keys of en.ts. Sentences
 * about the reader name their address or subscription, so they need no gendered agreement.
 */
export const es: Catalogue = {
  'footer.reason': 'Recibe este correo porque su dirección está suscrita a nuestra lista.',
  'footer.reasonTopic': 'Recibe este correo porque su dirección está suscrita a {topic}.',
  'footer.unsubscribe': 'Cancelar suscripción',
  'footer.unsubscribeTopic': 'Cancelar suscripción a {topic}',
  'footer.preferences': 'Gestionar preferencias',

  'page.badLinkTitle': 'Este enlace no funciona',
  'page.badLink':
    'El enlace está incompleto o ya no es válido. Ábralo de nuevo desde el correo o pida al remitente que actualice sus preferencias.',

  'unsubscribe.title': 'Cancelar suscripción',
  'unsubscribe.question': '¿Dar de baja {email} de los correos de {project}?',
  'unsubscribe.button': 'Cancelar suscripción',
  'unsubscribe.instead': 'Elegir qué correos recibir en su lugar',
  'unsubscribe.doneTitle': 'Suscripción cancelada',
  'unsubscribe.alreadyTitle': 'Su suscripción ya estaba cancelada',
  'unsubscribe.done': 'La dirección {email} se ha dado de baja de {project}.',
  'unsubscribe.changedMind': '¿Ha cambiado de opinión? Gestione sus preferencias',

  'subscribe.title': 'Suscribirse',
  'subscribe.question': '¿Suscribir {email} a los correos de {project}?',
  'subscribe.button': 'Suscribirse',
  'subscribe.doneTitle': 'Suscripción activada',
  'subscribe.alreadyTitle': 'Su suscripción ya está activa',
  'subscribe.done': 'La dirección {email} está suscrita a {project}.',
  'subscribe.choose': 'Elegir qué correos recibir',

  'topic.title': 'Cancelar suscripción a {topic}',
  'topic.question':
    '¿Dejar de enviar correos de {topic} a {email}? Sus demás suscripciones a los correos de {project} siguen activas.',
  'topic.button': 'Cancelar suscripción a {topic}',
  'topic.doneTitle': 'Suscripción a {topic} cancelada',
  'topic.alreadyTitle': 'Ya no recibe {topic}',
  'topic.done': '{email} ya no recibirá correos de {topic} de {project}. Sus demás suscripciones siguen activas.',
  'topic.goneTitle': 'Este tema ya no existe',
  'topic.gone': '{project} ya no envía correos sobre este tema.',
  'topic.manageAll': 'Gestionar todas sus preferencias de correo',

  'prefs.title': 'Sus preferencias de correo',
  'prefs.intro': 'Elija qué correos recibe {email} de {project}.',
  'prefs.unsubscribedNote':
    'Su suscripción está cancelada: no recibe correos de {project}, salvo los que usted solicite, como recibos o el restablecimiento de su contraseña.',
  'prefs.topics': 'Temas',
  'prefs.save': 'Guardar preferencias',
  'prefs.subscribeTicked': 'Suscribirme a los temas marcados',
  'prefs.pausedTitle': 'En pausa',
  'prefs.pausedUntil': 'Los correos están en pausa hasta el {date}.',
  'prefs.resume': 'Reanudar los correos ahora',
  'prefs.breakTitle': 'Tomarse un descanso',
  'prefs.pauseFor': 'Pausar boletines y anuncios durante',
  'prefs.pause': 'Pausar los correos',
  'prefs.snooze2w': '2 semanas',
  'prefs.snooze1m': '1 mes',
  'prefs.snooze3m': '3 meses',
  'prefs.everythingTitle': 'Cancelar todas las suscripciones',
  'prefs.everythingText':
    'Dejar de recibir todos los boletines y anuncios de {project}. Los correos sobre su cuenta, como los recibos, seguirán llegando.',
  'prefs.everythingButton': 'Cancelar todas las suscripciones',
  'prefs.everything': 'Todo',
  'prefs.subscribeAll': 'Volver a suscribirme a todo',
  'prefs.subscribeAgain': 'Volver a suscribirme',
  'prefs.languageTitle': 'Idioma',
  'prefs.languageLabel': 'Idioma de estas páginas y de los correos disponibles en varios idiomas',
  'prefs.languageSave': 'Guardar idioma',
  'prefs.savedNote': 'Sus preferencias se han guardado.',
  'prefs.pausedNote': 'Los correos quedan en pausa durante {duration}.',
  'prefs.resumedNote': 'Los correos ya no están en pausa.',
  'prefs.unsubscribedAllNote': 'Se han cancelado todas sus suscripciones.',
  'prefs.subscribedNote': 'Su suscripción vuelve a estar activa.',
  'prefs.languageNote': 'Su idioma se ha guardado.',
  'prefs.snoozeError': 'Elija cuánto tiempo pausar los correos: 2 semanas, 1 mes o 3 meses.',
  'prefs.languageError': 'Elija uno de los idiomas de la lista.',
  'prefs.formError': 'No se pudo leer el formulario. No se ha cambiado nada; inténtelo de nuevo.',

  'confirm.title': 'Confirme su suscripción',
  'confirm.text': 'Pulse el botón para confirmar que desea recibir correos de {project}.',
  'confirm.button': 'Confirmar mi suscripción',
  'confirm.doneTitle': 'Suscripción confirmada',
  'confirm.done': 'Su suscripción está confirmada.',
  'confirm.expiredTitle': 'Este enlace ha caducado',
  'confirm.expired':
    'Los enlaces de confirmación son válidos durante {days} días y este es más antiguo. No se ha cambiado nada.',
  'confirm.signUpAgain': '{link} para recibir un enlace nuevo.',
  'confirm.signUpAgainLink': 'Suscríbase de nuevo',
  'confirm.notFoundTitle': 'Página no encontrada',
  'confirm.notFound':
    'En esta dirección no hay ningún formulario de suscripción ni enlace de confirmación. Compruebe el enlace que ha seguido.',

  'confirmMail.subject': 'Confirme su suscripción a {project}',
  'confirmMail.hello': 'Hola:',
  'confirmMail.text':
    'Alguien, probablemente usted, se ha suscrito con esta dirección para recibir correos de {project}. Confirme que fue usted:',
  'confirmMail.button': 'Confirmar mi suscripción',
  'confirmMail.expiry':
    'El enlace es válido durante {days} días. Si no se ha suscrito, ignore este correo: no recibirá nada más de nosotros.',
};
