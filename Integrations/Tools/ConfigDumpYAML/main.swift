import ConfigDumpTool
import Strata
import StrataYAML

// config-dump with YAML: the same tool, options and output, reading .yaml and .yml files too.
// snippet: config-dump-yaml
ConfigDump.main(formats: FormatRegistry.standard.registering(YAMLFormat()))
// snippet: end
