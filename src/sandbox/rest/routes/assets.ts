/** The expression, event, stage and voice routes (emojis, stickers, scheduled events, ...), as one table. */
import type { SandboxCore } from '../../core.js';
import type { RouteDef } from '../types.js';
import { emojiRoutes } from './emojis.js';
import { scheduledEventRoutes } from './scheduled-events.js';
import { stageVoiceRoutes } from './stage-voice.js';
import { stickerRoutes } from './stickers.js';

export function assetRoutes(core: SandboxCore): RouteDef[] {
  return [...emojiRoutes(core), ...stickerRoutes(core), ...scheduledEventRoutes(core), ...stageVoiceRoutes(core)];
}
