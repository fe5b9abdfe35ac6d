export {
  loadOrder,
  maxProjectSkills,
  maxSkillBytes,
  maxSkillFiles,
  readSkillFolder,
  type SkillSummary,
  type StoredSkill,
} from "./library";
