/** The Web API methods the stand-in implements, by name. Anything else answers `unknown_method`. */
import * as chat from './chat-methods.js';
import { conversationsHistory, conversationsReplies } from './conversations-history.js';
import * as files from './files-methods.js';
import type { MethodHandler } from './method-context.js';
import * as views from './views-methods.js';
import * as workspace from './workspace-methods.js';

export const WEB_API_METHODS: Readonly<Record<string, MethodHandler>> = {
  'auth.test': workspace.authTest,
  'chat.postMessage': chat.postMessage,
  'chat.update': chat.update,
  'chat.delete': chat.deleteMessage,
  'chat.postEphemeral': chat.postEphemeral,
  'chat.getPermalink': chat.getPermalink,
  'views.publish': views.publish,
  'views.open': views.open,
  'views.push': views.push,
  'views.update': views.update,
  'files.getUploadURLExternal': files.getUploadURLExternal,
  'files.completeUploadExternal': files.completeUploadExternal,
  'files.info': files.info,
  'conversations.info': workspace.conversationsInfo,
  'conversations.list': workspace.conversationsList,
  'conversations.join': workspace.conversationsJoin,
  'conversations.history': conversationsHistory,
  'conversations.replies': conversationsReplies,
  'users.info': workspace.usersInfo,
  'users.conversations': workspace.usersConversations,
  'usergroups.users.list': workspace.usergroupsUsersList,
};
