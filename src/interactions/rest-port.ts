import type {
  APIInteractionResponse,
  APIInteractionResponseCallbackData,
  APIMessage,
  RESTPatchAPIWebhookWithTokenMessageJSONBody,
} from 'discord-api-types/v10';

/**
 * What the interaction layer needs from REST: the callback and the webhook-style endpoints keyed by the
 * interaction token (protocol §14.4-§14.5). The REST client implements it; nothing here does I/O itself.
 */
export interface InteractionTransport {
  callback(interactionId: string, token: string, body: APIInteractionResponse): Promise<void>;
  editOriginal(
    applicationId: string,
    token: string,
    body: RESTPatchAPIWebhookWithTokenMessageJSONBody,
  ): Promise<APIMessage>;
  deleteOriginal(applicationId: string, token: string): Promise<void>;
  followUp(applicationId: string, token: string, body: APIInteractionResponseCallbackData): Promise<APIMessage>;
  editFollowUp(
    applicationId: string,
    token: string,
    messageId: string,
    body: RESTPatchAPIWebhookWithTokenMessageJSONBody,
  ): Promise<APIMessage>;
  deleteFollowUp(applicationId: string, token: string, messageId: string): Promise<void>;
}
