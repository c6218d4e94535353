"""Generator: Bot API spec JSON -> tgfast/types and tgfast/methods."""
