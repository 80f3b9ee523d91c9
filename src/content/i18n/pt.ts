import type { Catalogue } from './en.js';

/**
 * Portuguese ("você", as Brazil writes it, and readable in Portugal), for the keys of en.ts.
 * Sentences about the reader name their address or subscription, so they need no gendered agreement.
 */
export const pt: Catalogue = {
  'footer.reason': 'Você recebeu este e-mail porque se inscreveu em nossa lista.',
  'footer.reasonTopic': 'Você recebeu este e-mail porque se inscreveu em {topic}.',
  'footer.unsubscribe': 'Cancelar inscrição',
  'footer.unsubscribeTopic': 'Cancelar inscrição em {topic}',
  'footer.preferences': 'Gerenciar preferências',

  'page.badLinkTitle': 'Este link não funciona',
  'page.badLink':
    'O link está incompleto ou não é mais válido. Abra-o novamente a partir do e-mail ou peça ao remetente que atualize suas preferências.',

  'unsubscribe.title': 'Cancelar inscrição',
  'unsubscribe.question': 'Cancelar a inscrição de {email} nos e-mails de {project}?',
  'unsubscribe.button': 'Cancelar inscrição',
  'unsubscribe.instead': 'Escolher quais e-mails receber',
  'unsubscribe.doneTitle': 'Inscrição cancelada',
  'unsubscribe.alreadyTitle': 'Sua inscrição já está cancelada',
  'unsubscribe.done': 'A inscrição de {email} em {project} foi cancelada.',
  'unsubscribe.changedMind': 'Mudou de ideia? Gerencie suas preferências',

  'subscribe.title': 'Inscrever-se',
  'subscribe.question': 'Inscrever {email} nos e-mails de {project}?',
  'subscribe.button': 'Inscrever-se',
  'subscribe.doneTitle': 'Inscrição ativada',
  'subscribe.alreadyTitle': 'Sua inscrição já está ativa',
  'subscribe.done': 'A inscrição de {email} em {project} está ativa.',
  'subscribe.choose': 'Escolher quais e-mails receber',

  'topic.title': 'Cancelar inscrição em {topic}',
  'topic.question':
    'Parar de enviar e-mails de {topic} para {email}? Suas outras inscrições nos e-mails de {project} continuam ativas.',
  'topic.button': 'Cancelar inscrição em {topic}',
  'topic.doneTitle': 'Inscrição em {topic} cancelada',
  'topic.alreadyTitle': 'Você não recebe mais {topic}',
  'topic.done': '{email} não receberá mais e-mails de {topic} de {project}. Suas outras inscrições continuam ativas.',
  'topic.goneTitle': 'Este tema não existe mais',
  'topic.gone': '{project} não envia mais e-mails sobre este tema.',
  'topic.manageAll': 'Gerenciar todas as suas preferências de e-mail',

  'prefs.title': 'Suas preferências de e-mail',
  'prefs.intro': 'Escolha quais e-mails {email} recebe de {project}.',
  'prefs.unsubscribedNote':
    'Sua inscrição está cancelada: você não recebe e-mails de {project}, exceto os que você mesmo solicitar, como recibos ou a redefinição de senha.',
  'prefs.topics': 'Temas',
  'prefs.save': 'Salvar preferências',
  'prefs.subscribeTicked': 'Inscrever-me nos temas marcados',
  'prefs.pausedTitle': 'Em pausa',
  'prefs.pausedUntil': 'Os e-mails estão pausados até {date}.',
  'prefs.resume': 'Retomar os e-mails agora',
  'prefs.breakTitle': 'Fazer uma pausa',
  'prefs.pauseFor': 'Pausar newsletters e anúncios por',
  'prefs.pause': 'Pausar e-mails',
  'prefs.snooze2w': '2 semanas',
  'prefs.snooze1m': '1 mês',
  'prefs.snooze3m': '3 meses',
  'prefs.everythingTitle': 'Cancelar todas as inscrições',
  'prefs.everythingText':
    'Parar de receber todas as newsletters e anúncios de {project}. E-mails sobre sua conta, como recibos, continuam chegando.',
  'prefs.everythingButton': 'Cancelar todas as inscrições',
  'prefs.everything': 'Tudo',
  'prefs.subscribeAll': 'Inscrever-me em tudo novamente',
  'prefs.subscribeAgain': 'Inscrever-me novamente',
  'prefs.languageTitle': 'Idioma',
  'prefs.languageLabel': 'Idioma destas páginas e dos e-mails disponíveis em vários idiomas',
  'prefs.languageSave': 'Salvar idioma',
  'prefs.savedNote': 'Suas preferências foram salvas.',
  'prefs.pausedNote': 'Os e-mails estão pausados por {duration}.',
  'prefs.resumedNote': 'Os e-mails não estão mais pausados.',
  'prefs.unsubscribedAllNote': 'Todas as suas inscrições foram canceladas.',
  'prefs.subscribedNote': 'Sua inscrição foi reativada.',
  'prefs.languageNote': 'Seu idioma foi salvo.',
  'prefs.snoozeError': 'Escolha por quanto tempo pausar os e-mails: 2 semanas, 1 mês ou 3 meses.',
  'prefs.languageError': 'Escolha um dos idiomas da lista.',
  'prefs.formError': 'Não foi possível ler o formulário. Nada foi alterado; tente novamente.',

  'confirm.title': 'Confirme sua inscrição',
  'confirm.text': 'Clique no botão para confirmar que deseja receber e-mails de {project}.',
  'confirm.button': 'Confirmar minha inscrição',
  'confirm.doneTitle': 'Inscrição confirmada',
  'confirm.done': 'Sua inscrição está confirmada.',
  'confirm.expiredTitle': 'Este link expirou',
  'confirm.expired': 'Os links de confirmação valem por {days} dias, e este é mais antigo. Nada foi alterado.',
  'confirm.signUpAgain': '{link} para receber um novo link.',
  'confirm.signUpAgainLink': 'Inscreva-se novamente',
  'confirm.notFoundTitle': 'Página não encontrada',
  'confirm.notFound':
    'Não há formulário de inscrição nem link de confirmação neste endereço. Verifique o link que você seguiu.',

  'confirmMail.subject': 'Confirme sua inscrição em {project}',
  'confirmMail.hello': 'Olá,',
  'confirmMail.text':
    'Alguém, provavelmente você, se inscreveu com este endereço para receber e-mails de {project}. Confirme que foi você:',
  'confirmMail.button': 'Confirmar minha inscrição',
  'confirmMail.expiry':
    'O link vale por {days} dias. Se você não se inscreveu, ignore este e-mail: você não receberá mais nada de nós.',
};
