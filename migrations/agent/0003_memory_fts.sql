-- Full-text index over memory text (bm25 ranking for lexical retrieval). External content: the
-- text lives once, in `memories`; triggers keep the index in step with every write.
CREATE VIRTUAL TABLE `memories_fts` USING fts5(`text`, content='memories', content_rowid='seq', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `memories_fts_insert` AFTER INSERT ON `memories` BEGIN
  INSERT INTO `memories_fts`(rowid, `text`) VALUES (new.`seq`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_delete` AFTER DELETE ON `memories` BEGIN
  INSERT INTO `memories_fts`(`memories_fts`, rowid, `text`) VALUES ('delete', old.`seq`, old.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_update` AFTER UPDATE OF `text` ON `memories` BEGIN
  INSERT INTO `memories_fts`(`memories_fts`, rowid, `text`) VALUES ('delete', old.`seq`, old.`text`);
  INSERT INTO `memories_fts`(rowid, `text`) VALUES (new.`seq`, new.`text`);
END;
