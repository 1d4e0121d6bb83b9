/**
 * The HTTP transport: the signed endpoint the service POSTs interactions and webhook events to. It verifies,
 * parses and hands over; routing, cache and plugins are the runtime's business (imports point down only).
 */
export { OTHER_PATH, SignedEndpoint, type EndpointReply, type RequestOutcome, type SignedEndpointOptions, type SignedRequest, type SignedRoute } from './server.js';
export {
  checkSignature,
  ed25519PublicKey,
  isPublicKeyHex,
  publicKeyHex,
  PublicKeyError,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  timestampAge,
  type SignatureCheck,
} from './signature.js';
export { readBoundedBody, type BodyResult } from './body.js';
export { RecentKeys } from './recent-keys.js';
export { InitialResponses, type InitialOutcome } from './initial-responses.js';
export { interactionsRoute, type InteractionIntake, type InteractionsRouteOptions, type ReceivedInteraction } from './interactions-route.js';
export {
  parseWebhookBody,
  WEBHOOK_EVENT,
  WEBHOOK_PING,
  webhookEventKey,
  webhookEventsRoute,
  type WebhookEvent,
  type WebhookEventIntake,
} from './webhook-events.js';
