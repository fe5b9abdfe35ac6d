export { defaultInviteSeconds, inviteCodeSchema, inviteCreateSchema, inviteRedeemSchema, joinLink, maxInviteSeconds, newInviteCode, parseJoinLink, personNameSchema } from "./people";
