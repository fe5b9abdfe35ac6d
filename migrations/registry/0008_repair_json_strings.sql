-- Agents made by a project import or a snapshot restore got the column defaults drizzle stringified:
-- `goals` stored as the JSON string "[]" (and `runtime` as "{}" where it was ever left out). Each
-- becomes the list (object) the string holds; anything else that is not a list of goals becomes [].
-- CASE, not AND, guards each JSON function: SQLite does not promise to skip json_type of malformed text.
UPDATE `agents` SET `goals` = CASE
    WHEN NOT json_valid(`goals`) THEN '[]'
    WHEN json_type(`goals`) <> 'text' THEN '[]'
    WHEN NOT json_valid(json_extract(`goals`, '$')) THEN '[]'
    WHEN json_type(json_extract(`goals`, '$')) = 'array' THEN json_extract(`goals`, '$')
    ELSE '[]'
  END
  WHERE CASE WHEN json_valid(`goals`) THEN json_type(`goals`) <> 'array' ELSE 1 END;
--> statement-breakpoint
UPDATE `agents` SET `runtime` = json_extract(`runtime`, '$')
  WHERE CASE
    WHEN NOT json_valid(`runtime`) THEN 0
    WHEN json_type(`runtime`) <> 'text' THEN 0
    WHEN NOT json_valid(json_extract(`runtime`, '$')) THEN 0
    ELSE json_type(json_extract(`runtime`, '$')) = 'object'
  END;
