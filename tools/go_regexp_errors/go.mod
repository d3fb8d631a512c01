module goregexperrors

go 1.26
