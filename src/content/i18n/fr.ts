import type { Catalogue } from './en.js';

/**
 * French ("vous"), for the keys of en.ts. Sentences about the reader name their address rather than
 * the reader, so they need no gendered agreement; `\u00a0` is the space French puts before ? : ; !.
 */
export const fr: Catalogue = {
  'footer.reason': 'Vous recevez cet e-mail parce que votre adresse est inscrite à notre liste.',
  'footer.reasonTopic': 'Vous recevez cet e-mail parce que votre adresse est abonnée à {topic}.',
  'footer.unsubscribe': 'Se désabonner',
  'footer.unsubscribeTopic': 'Se désabonner de {topic}',
  'footer.preferences': 'Gérer mes préférences',

  'page.badLinkTitle': 'Ce lien ne fonctionne pas',
  'page.badLink':
    'Le lien est incomplet ou n’est plus valide. Ouvrez-le à nouveau depuis l’e-mail, ou demandez à l’expéditeur de mettre à jour vos préférences.',

  'unsubscribe.title': 'Se désabonner',
  'unsubscribe.question': 'Désabonner {email} des e-mails de {project}\u00a0?',
  'unsubscribe.button': 'Se désabonner',
  'unsubscribe.instead': 'Choisir plutôt les e-mails à recevoir',
  'unsubscribe.doneTitle': 'Désabonnement effectué',
  'unsubscribe.alreadyTitle': 'Désabonnement déjà effectué',
  'unsubscribe.done': 'L’adresse {email} est désabonnée de {project}.',
  'unsubscribe.changedMind': 'Vous avez changé d’avis\u00a0? Gérez vos préférences',

  'subscribe.title': 'S’abonner',
  'subscribe.question': 'Abonner {email} aux e-mails de {project}\u00a0?',
  'subscribe.button': 'S’abonner',
  'subscribe.doneTitle': 'Abonnement effectué',
  'subscribe.alreadyTitle': 'Abonnement déjà actif',
  'subscribe.done': 'L’adresse {email} est abonnée à {project}.',
  'subscribe.choose': 'Choisir les e-mails à recevoir',

  'topic.title': 'Se désabonner de {topic}',
  'topic.question':
    'Ne plus envoyer les e-mails «\u00a0{topic}\u00a0» à {email}\u00a0? Vos autres abonnements aux e-mails de {project} restent actifs.',
  'topic.button': 'Se désabonner de {topic}',
  'topic.doneTitle': 'Désabonnement de {topic} effectué',
  'topic.alreadyTitle': 'Vous ne recevez plus {topic}',
  'topic.done':
    'L’adresse {email} ne recevra plus d’e-mails «\u00a0{topic}\u00a0» de {project}. Vos autres abonnements restent actifs.',
  'topic.goneTitle': 'Ce thème n’existe plus',
  'topic.gone': '{project} n’envoie plus d’e-mails sur ce thème.',
  'topic.manageAll': 'Gérer toutes vos préférences d’e-mail',

  'prefs.title': 'Vos préférences d’e-mail',
  'prefs.intro': 'Choisissez les e-mails que {email} reçoit de {project}.',
  'prefs.unsubscribedNote':
    'Votre adresse est désabonnée\u00a0: vous ne recevez plus d’e-mails de {project}, sauf ceux que vous demandez, comme les reçus ou la réinitialisation de votre mot de passe.',
  'prefs.topics': 'Thèmes',
  'prefs.save': 'Enregistrer mes préférences',
  'prefs.subscribeTicked': 'M’abonner aux thèmes cochés',
  'prefs.pausedTitle': 'En pause',
  'prefs.pausedUntil': 'Les e-mails sont en pause jusqu’au {date}.',
  'prefs.resume': 'Reprendre les e-mails maintenant',
  'prefs.breakTitle': 'Faire une pause',
  'prefs.pauseFor': 'Mettre en pause les newsletters et les annonces pendant',
  'prefs.pause': 'Mettre les e-mails en pause',
  'prefs.snooze2w': '2 semaines',
  'prefs.snooze1m': '1 mois',
  'prefs.snooze3m': '3 mois',
  'prefs.everythingTitle': 'Se désabonner de tout',
  'prefs.everythingText':
    'Ne plus recevoir aucune newsletter ni annonce de {project}. Les e-mails liés à votre compte, comme les reçus, continuent d’arriver.',
  'prefs.everythingButton': 'Me désabonner de tout',
  'prefs.everything': 'Tout',
  'prefs.subscribeAll': 'Me réabonner à tout',
  'prefs.subscribeAgain': 'Me réabonner',
  'prefs.languageTitle': 'Langue',
  'prefs.languageLabel': 'Langue de ces pages et des e-mails proposés en plusieurs langues',
  'prefs.languageSave': 'Enregistrer la langue',
  'prefs.savedNote': 'Vos préférences sont enregistrées.',
  'prefs.pausedNote': 'Les e-mails sont en pause pour {duration}.',
  'prefs.resumedNote': 'Les e-mails ne sont plus en pause.',
  'prefs.unsubscribedAllNote': 'Votre désabonnement de tous les e-mails est enregistré.',
  'prefs.subscribedNote': 'Votre réabonnement est enregistré.',
  'prefs.languageNote': 'Votre langue est enregistrée.',
  'prefs.snoozeError': 'Choisissez la durée de la pause\u00a0: 2 semaines, 1 mois ou 3 mois.',
  'prefs.languageError': 'Choisissez l’une des langues de la liste.',
  'prefs.formError': 'Ce formulaire n’a pas pu être lu. Rien n’a été modifié\u00a0; veuillez réessayer.',

  'confirm.title': 'Confirmez votre inscription',
  'confirm.text': 'Appuyez sur le bouton pour confirmer que vous souhaitez recevoir les e-mails de {project}.',
  'confirm.button': 'Confirmer mon abonnement',
  'confirm.doneTitle': 'Inscription confirmée',
  'confirm.done': 'Votre abonnement est confirmé.',
  'confirm.expiredTitle': 'Ce lien a expiré',
  'confirm.expired':
    'Les liens de confirmation sont valables {days} jours, et celui-ci est plus ancien. Rien n’a été modifié.',
  'confirm.signUpAgain': '{link} pour recevoir un nouveau lien.',
  'confirm.signUpAgainLink': 'Inscrivez-vous à nouveau',
  'confirm.notFoundTitle': 'Page introuvable',
  'confirm.notFound':
    'Il n’y a ni formulaire d’inscription ni lien de confirmation à cette adresse. Vérifiez le lien que vous avez suivi.',

  'confirmMail.subject': 'Confirmez votre abonnement à {project}',
  'confirmMail.hello': 'Bonjour,',
  'confirmMail.text':
    'Quelqu’un, probablement vous, s’est inscrit avec cette adresse pour recevoir les e-mails de {project}. Merci de confirmer que c’était bien vous :',
  'confirmMail.button': 'Confirmer mon abonnement',
  'confirmMail.expiry':
    'Le lien est valable {days} jours. Si vous ne vous êtes pas inscrit, ignorez cet e-mail : vous ne recevrez plus rien de notre part.',
};
