export {
  makeTelegramBot,
  officialTelegramApi,
  telegramApiBase,
  type TelegramBot,
  type TelegramBotOptions,
} from "./telegram-bot";
