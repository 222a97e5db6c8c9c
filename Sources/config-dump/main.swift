import ConfigDumpTool

// config-dump with the built-in formats; the tool itself is the ConfigDumpTool library.
ConfigDump.main()
