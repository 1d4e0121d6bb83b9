/** Public API of gatehouse. */
export { loadConfig, ConfigError, intentBits, type Config, type ConfigInput } from './runtime/config.js';
export { createLogger, type Logger } from './runtime/logger.js';
export { INTENT_BITS, type IntentName } from './api/intents.js';
export { shardForGuild, snowflakeTimestamp, type Snowflake } from './api/snowflake.js';
