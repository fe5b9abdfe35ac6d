export {
  loadOrder,
  maxProjectSkills,
  maxSkillBytes,
  maxSkillFiles,
  readSkillFolder,
  type SkillEntry,
  type SkillSummary,
  type StoredSkill,
} from "./library";
