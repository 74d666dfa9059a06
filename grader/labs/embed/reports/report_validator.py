"""The quick validator of embed_report.json: generated, do not edit.

fastjsonschema 2.22.3 wrote this code from ``schemas/report.schema.json`` (SHA-256
below); ``python -m grader.labs.embed.reports`` writes it again.  Its
exception comes from here, so that nothing is imported to use it.
"""
# mypy: ignore-errors

SCHEMA_SHA256 = "fc7bc5a8e64182d18e297dc30ef1a021266292cdbc83fa29ba335e3ee21e23dd"


class JsonSchemaValueException(ValueError):
    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException
VERSION = "2.22.3"
Decimal = float


NoneType = type(None)

def validate_https___embed_grader_invalid_schemas_report_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'https://json-schema.org/draft/2020-12/schema', '$id': 'https://embed-grader.invalid/schemas/report.schema.json', 'title': 'embed_report.json', 'description': "The measurements of step 8 with the fixed constants: 30 keys, each with its JSON type. Keys besides these are allowed and not graded. JSON Schema's integer also accepts 1.0; the grader rejects floats for integer keys itself.", 'type': 'object', 'required': ['vocab', 'dim', 'seed', 'probe', 'table_shape', 'params', 'tied_params', 'untied_params', 'saved', 'bigger_vocab', 'bigger_tied', 'bigger_untied', 'lookup_mults', 'one_hot_mults', 'max_abs_diff', 'repeat_same', 'logit_len', 'logit_argmax', 'logit_argmax_is_self', 'cos_neighbors', 'dot_neighbors', 'neighbors_differ', 'stretch_target', 'stretch_factor', 'cos_after_stretch', 'dot_after_stretch', 'cos_unchanged_by_scale', 'rms_plain', 'rms_scaled', 'rms_ratio'], 'properties': {'vocab': {'type': 'integer'}, 'dim': {'type': 'integer'}, 'seed': {'type': 'integer'}, 'probe': {'type': 'integer'}, 'table_shape': {'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, 'params': {'type': 'integer'}, 'tied_params': {'type': 'integer'}, 'untied_params': {'type': 'integer'}, 'saved': {'type': 'integer'}, 'bigger_vocab': {'type': 'integer'}, 'bigger_tied': {'type': 'integer'}, 'bigger_untied': {'type': 'integer'}, 'lookup_mults': {'type': 'integer'}, 'one_hot_mults': {'type': 'integer'}, 'max_abs_diff': {'type': 'number'}, 'repeat_same': {'type': 'boolean'}, 'logit_len': {'type': 'integer'}, 'logit_argmax': {'type': 'integer'}, 'logit_argmax_is_self': {'type': 'boolean'}, 'cos_neighbors': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'dot_neighbors': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'neighbors_differ': {'type': 'boolean'}, 'stretch_target': {'type': 'integer'}, 'stretch_factor': {'type': 'number'}, 'cos_after_stretch': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'dot_after_stretch': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'cos_unchanged_by_scale': {'type': 'boolean'}, 'rms_plain': {'type': 'number'}, 'rms_scaled': {'type': 'number'}, 'rms_ratio': {'type': 'number'}}, '$defs': {'shape': {'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, 'indices': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['vocab', 'dim', 'seed', 'probe', 'table_shape', 'params', 'tied_params', 'untied_params', 'saved', 'bigger_vocab', 'bigger_tied', 'bigger_untied', 'lookup_mults', 'one_hot_mults', 'max_abs_diff', 'repeat_same', 'logit_len', 'logit_argmax', 'logit_argmax_is_self', 'cos_neighbors', 'dot_neighbors', 'neighbors_differ', 'stretch_target', 'stretch_factor', 'cos_after_stretch', 'dot_after_stretch', 'cos_unchanged_by_scale', 'rms_plain', 'rms_scaled', 'rms_ratio']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'https://json-schema.org/draft/2020-12/schema', '$id': 'https://embed-grader.invalid/schemas/report.schema.json', 'title': 'embed_report.json', 'description': "The measurements of step 8 with the fixed constants: 30 keys, each with its JSON type. Keys besides these are allowed and not graded. JSON Schema's integer also accepts 1.0; the grader rejects floats for integer keys itself.", 'type': 'object', 'required': ['vocab', 'dim', 'seed', 'probe', 'table_shape', 'params', 'tied_params', 'untied_params', 'saved', 'bigger_vocab', 'bigger_tied', 'bigger_untied', 'lookup_mults', 'one_hot_mults', 'max_abs_diff', 'repeat_same', 'logit_len', 'logit_argmax', 'logit_argmax_is_self', 'cos_neighbors', 'dot_neighbors', 'neighbors_differ', 'stretch_target', 'stretch_factor', 'cos_after_stretch', 'dot_after_stretch', 'cos_unchanged_by_scale', 'rms_plain', 'rms_scaled', 'rms_ratio'], 'properties': {'vocab': {'type': 'integer'}, 'dim': {'type': 'integer'}, 'seed': {'type': 'integer'}, 'probe': {'type': 'integer'}, 'table_shape': {'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, 'params': {'type': 'integer'}, 'tied_params': {'type': 'integer'}, 'untied_params': {'type': 'integer'}, 'saved': {'type': 'integer'}, 'bigger_vocab': {'type': 'integer'}, 'bigger_tied': {'type': 'integer'}, 'bigger_untied': {'type': 'integer'}, 'lookup_mults': {'type': 'integer'}, 'one_hot_mults': {'type': 'integer'}, 'max_abs_diff': {'type': 'number'}, 'repeat_same': {'type': 'boolean'}, 'logit_len': {'type': 'integer'}, 'logit_argmax': {'type': 'integer'}, 'logit_argmax_is_self': {'type': 'boolean'}, 'cos_neighbors': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'dot_neighbors': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'neighbors_differ': {'type': 'boolean'}, 'stretch_target': {'type': 'integer'}, 'stretch_factor': {'type': 'number'}, 'cos_after_stretch': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'dot_after_stretch': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, 'cos_unchanged_by_scale': {'type': 'boolean'}, 'rms_plain': {'type': 'number'}, 'rms_scaled': {'type': 'number'}, 'rms_ratio': {'type': 'number'}}, '$defs': {'shape': {'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, 'indices': {'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}}}, rule='required')
        data_keys = set(data.keys())
        if "vocab" in data_keys:
            data_keys.remove("vocab")
            data__vocab = data["vocab"]
            if not isinstance(data__vocab, (int)) and not (isinstance(data__vocab, float) and data__vocab.is_integer()) or isinstance(data__vocab, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".vocab must be integer", value=data__vocab, name="" + (name_prefix or "data") + ".vocab", definition={'type': 'integer'}, rule='type')
        if "dim" in data_keys:
            data_keys.remove("dim")
            data__dim = data["dim"]
            if not isinstance(data__dim, (int)) and not (isinstance(data__dim, float) and data__dim.is_integer()) or isinstance(data__dim, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".dim must be integer", value=data__dim, name="" + (name_prefix or "data") + ".dim", definition={'type': 'integer'}, rule='type')
        if "seed" in data_keys:
            data_keys.remove("seed")
            data__seed = data["seed"]
            if not isinstance(data__seed, (int)) and not (isinstance(data__seed, float) and data__seed.is_integer()) or isinstance(data__seed, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".seed must be integer", value=data__seed, name="" + (name_prefix or "data") + ".seed", definition={'type': 'integer'}, rule='type')
        if "probe" in data_keys:
            data_keys.remove("probe")
            data__probe = data["probe"]
            if not isinstance(data__probe, (int)) and not (isinstance(data__probe, float) and data__probe.is_integer()) or isinstance(data__probe, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".probe must be integer", value=data__probe, name="" + (name_prefix or "data") + ".probe", definition={'type': 'integer'}, rule='type')
        if "table_shape" in data_keys:
            data_keys.remove("table_shape")
            data__tableshape = data["table_shape"]
            validate_https___embed_grader_invalid_schemas_report_schema_json___defs_shape(data__tableshape, custom_formats, (name_prefix or "data") + ".table_shape")
        if "params" in data_keys:
            data_keys.remove("params")
            data__params = data["params"]
            if not isinstance(data__params, (int)) and not (isinstance(data__params, float) and data__params.is_integer()) or isinstance(data__params, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".params must be integer", value=data__params, name="" + (name_prefix or "data") + ".params", definition={'type': 'integer'}, rule='type')
        if "tied_params" in data_keys:
            data_keys.remove("tied_params")
            data__tiedparams = data["tied_params"]
            if not isinstance(data__tiedparams, (int)) and not (isinstance(data__tiedparams, float) and data__tiedparams.is_integer()) or isinstance(data__tiedparams, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".tied_params must be integer", value=data__tiedparams, name="" + (name_prefix or "data") + ".tied_params", definition={'type': 'integer'}, rule='type')
        if "untied_params" in data_keys:
            data_keys.remove("untied_params")
            data__untiedparams = data["untied_params"]
            if not isinstance(data__untiedparams, (int)) and not (isinstance(data__untiedparams, float) and data__untiedparams.is_integer()) or isinstance(data__untiedparams, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".untied_params must be integer", value=data__untiedparams, name="" + (name_prefix or "data") + ".untied_params", definition={'type': 'integer'}, rule='type')
        if "saved" in data_keys:
            data_keys.remove("saved")
            data__saved = data["saved"]
            if not isinstance(data__saved, (int)) and not (isinstance(data__saved, float) and data__saved.is_integer()) or isinstance(data__saved, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".saved must be integer", value=data__saved, name="" + (name_prefix or "data") + ".saved", definition={'type': 'integer'}, rule='type')
        if "bigger_vocab" in data_keys:
            data_keys.remove("bigger_vocab")
            data__biggervocab = data["bigger_vocab"]
            if not isinstance(data__biggervocab, (int)) and not (isinstance(data__biggervocab, float) and data__biggervocab.is_integer()) or isinstance(data__biggervocab, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".bigger_vocab must be integer", value=data__biggervocab, name="" + (name_prefix or "data") + ".bigger_vocab", definition={'type': 'integer'}, rule='type')
        if "bigger_tied" in data_keys:
            data_keys.remove("bigger_tied")
            data__biggertied = data["bigger_tied"]
            if not isinstance(data__biggertied, (int)) and not (isinstance(data__biggertied, float) and data__biggertied.is_integer()) or isinstance(data__biggertied, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".bigger_tied must be integer", value=data__biggertied, name="" + (name_prefix or "data") + ".bigger_tied", definition={'type': 'integer'}, rule='type')
        if "bigger_untied" in data_keys:
            data_keys.remove("bigger_untied")
            data__biggeruntied = data["bigger_untied"]
            if not isinstance(data__biggeruntied, (int)) and not (isinstance(data__biggeruntied, float) and data__biggeruntied.is_integer()) or isinstance(data__biggeruntied, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".bigger_untied must be integer", value=data__biggeruntied, name="" + (name_prefix or "data") + ".bigger_untied", definition={'type': 'integer'}, rule='type')
        if "lookup_mults" in data_keys:
            data_keys.remove("lookup_mults")
            data__lookupmults = data["lookup_mults"]
            if not isinstance(data__lookupmults, (int)) and not (isinstance(data__lookupmults, float) and data__lookupmults.is_integer()) or isinstance(data__lookupmults, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".lookup_mults must be integer", value=data__lookupmults, name="" + (name_prefix or "data") + ".lookup_mults", definition={'type': 'integer'}, rule='type')
        if "one_hot_mults" in data_keys:
            data_keys.remove("one_hot_mults")
            data__onehotmults = data["one_hot_mults"]
            if not isinstance(data__onehotmults, (int)) and not (isinstance(data__onehotmults, float) and data__onehotmults.is_integer()) or isinstance(data__onehotmults, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".one_hot_mults must be integer", value=data__onehotmults, name="" + (name_prefix or "data") + ".one_hot_mults", definition={'type': 'integer'}, rule='type')
        if "max_abs_diff" in data_keys:
            data_keys.remove("max_abs_diff")
            data__maxabsdiff = data["max_abs_diff"]
            if not isinstance(data__maxabsdiff, (int, float, Decimal)) or isinstance(data__maxabsdiff, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".max_abs_diff must be number", value=data__maxabsdiff, name="" + (name_prefix or "data") + ".max_abs_diff", definition={'type': 'number'}, rule='type')
        if "repeat_same" in data_keys:
            data_keys.remove("repeat_same")
            data__repeatsame = data["repeat_same"]
            if not isinstance(data__repeatsame, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".repeat_same must be boolean", value=data__repeatsame, name="" + (name_prefix or "data") + ".repeat_same", definition={'type': 'boolean'}, rule='type')
        if "logit_len" in data_keys:
            data_keys.remove("logit_len")
            data__logitlen = data["logit_len"]
            if not isinstance(data__logitlen, (int)) and not (isinstance(data__logitlen, float) and data__logitlen.is_integer()) or isinstance(data__logitlen, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logit_len must be integer", value=data__logitlen, name="" + (name_prefix or "data") + ".logit_len", definition={'type': 'integer'}, rule='type')
        if "logit_argmax" in data_keys:
            data_keys.remove("logit_argmax")
            data__logitargmax = data["logit_argmax"]
            if not isinstance(data__logitargmax, (int)) and not (isinstance(data__logitargmax, float) and data__logitargmax.is_integer()) or isinstance(data__logitargmax, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logit_argmax must be integer", value=data__logitargmax, name="" + (name_prefix or "data") + ".logit_argmax", definition={'type': 'integer'}, rule='type')
        if "logit_argmax_is_self" in data_keys:
            data_keys.remove("logit_argmax_is_self")
            data__logitargmaxisself = data["logit_argmax_is_self"]
            if not isinstance(data__logitargmaxisself, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logit_argmax_is_self must be boolean", value=data__logitargmaxisself, name="" + (name_prefix or "data") + ".logit_argmax_is_self", definition={'type': 'boolean'}, rule='type')
        if "cos_neighbors" in data_keys:
            data_keys.remove("cos_neighbors")
            data__cosneighbors = data["cos_neighbors"]
            validate_https___embed_grader_invalid_schemas_report_schema_json___defs_indices(data__cosneighbors, custom_formats, (name_prefix or "data") + ".cos_neighbors")
        if "dot_neighbors" in data_keys:
            data_keys.remove("dot_neighbors")
            data__dotneighbors = data["dot_neighbors"]
            validate_https___embed_grader_invalid_schemas_report_schema_json___defs_indices(data__dotneighbors, custom_formats, (name_prefix or "data") + ".dot_neighbors")
        if "neighbors_differ" in data_keys:
            data_keys.remove("neighbors_differ")
            data__neighborsdiffer = data["neighbors_differ"]
            if not isinstance(data__neighborsdiffer, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".neighbors_differ must be boolean", value=data__neighborsdiffer, name="" + (name_prefix or "data") + ".neighbors_differ", definition={'type': 'boolean'}, rule='type')
        if "stretch_target" in data_keys:
            data_keys.remove("stretch_target")
            data__stretchtarget = data["stretch_target"]
            if not isinstance(data__stretchtarget, (int)) and not (isinstance(data__stretchtarget, float) and data__stretchtarget.is_integer()) or isinstance(data__stretchtarget, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stretch_target must be integer", value=data__stretchtarget, name="" + (name_prefix or "data") + ".stretch_target", definition={'type': 'integer'}, rule='type')
        if "stretch_factor" in data_keys:
            data_keys.remove("stretch_factor")
            data__stretchfactor = data["stretch_factor"]
            if not isinstance(data__stretchfactor, (int, float, Decimal)) or isinstance(data__stretchfactor, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stretch_factor must be number", value=data__stretchfactor, name="" + (name_prefix or "data") + ".stretch_factor", definition={'type': 'number'}, rule='type')
        if "cos_after_stretch" in data_keys:
            data_keys.remove("cos_after_stretch")
            data__cosafterstretch = data["cos_after_stretch"]
            validate_https___embed_grader_invalid_schemas_report_schema_json___defs_indices(data__cosafterstretch, custom_formats, (name_prefix or "data") + ".cos_after_stretch")
        if "dot_after_stretch" in data_keys:
            data_keys.remove("dot_after_stretch")
            data__dotafterstretch = data["dot_after_stretch"]
            validate_https___embed_grader_invalid_schemas_report_schema_json___defs_indices(data__dotafterstretch, custom_formats, (name_prefix or "data") + ".dot_after_stretch")
        if "cos_unchanged_by_scale" in data_keys:
            data_keys.remove("cos_unchanged_by_scale")
            data__cosunchangedbyscale = data["cos_unchanged_by_scale"]
            if not isinstance(data__cosunchangedbyscale, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cos_unchanged_by_scale must be boolean", value=data__cosunchangedbyscale, name="" + (name_prefix or "data") + ".cos_unchanged_by_scale", definition={'type': 'boolean'}, rule='type')
        if "rms_plain" in data_keys:
            data_keys.remove("rms_plain")
            data__rmsplain = data["rms_plain"]
            if not isinstance(data__rmsplain, (int, float, Decimal)) or isinstance(data__rmsplain, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rms_plain must be number", value=data__rmsplain, name="" + (name_prefix or "data") + ".rms_plain", definition={'type': 'number'}, rule='type')
        if "rms_scaled" in data_keys:
            data_keys.remove("rms_scaled")
            data__rmsscaled = data["rms_scaled"]
            if not isinstance(data__rmsscaled, (int, float, Decimal)) or isinstance(data__rmsscaled, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rms_scaled must be number", value=data__rmsscaled, name="" + (name_prefix or "data") + ".rms_scaled", definition={'type': 'number'}, rule='type')
        if "rms_ratio" in data_keys:
            data_keys.remove("rms_ratio")
            data__rmsratio = data["rms_ratio"]
            if not isinstance(data__rmsratio, (int, float, Decimal)) or isinstance(data__rmsratio, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rms_ratio must be number", value=data__rmsratio, name="" + (name_prefix or "data") + ".rms_ratio", definition={'type': 'number'}, rule='type')
    return data

def validate_https___embed_grader_invalid_schemas_report_schema_json___defs_indices(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array", value=data, name="" + (name_prefix or "data") + "", definition={'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, rule='type')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        if data_len < 5:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 5 items", value=data, name="" + (name_prefix or "data") + "", definition={'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, rule='minItems')
        if data_len > 5:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain less than or equal to 5 items", value=data, name="" + (name_prefix or "data") + "", definition={'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, rule='maxItems')
        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
        if data_len > len(set(fn(data_x) for data_x in data)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain unique items", value=data, name="" + (name_prefix or "data") + "", definition={'description': 'a neighbour list: k = 5 distinct row indices, best first', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 5, 'maxItems': 5, 'uniqueItems': True}, rule='uniqueItems')
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (int)) and not (isinstance(data_item, float) and data_item.is_integer()) or isinstance(data_item, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be integer", value=data_item, name="" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + "", definition={'type': 'integer'}, rule='type')
    return data

def validate_https___embed_grader_invalid_schemas_report_schema_json___defs_shape(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array", value=data, name="" + (name_prefix or "data") + "", definition={'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, rule='type')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        if data_len < 2:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 2 items", value=data, name="" + (name_prefix or "data") + "", definition={'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, rule='minItems')
        if data_len > 2:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain less than or equal to 2 items", value=data, name="" + (name_prefix or "data") + "", definition={'description': '[rows, cells] of the table: two integers', 'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2, 'maxItems': 2}, rule='maxItems')
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (int)) and not (isinstance(data_item, float) and data_item.is_integer()) or isinstance(data_item, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be integer", value=data_item, name="" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + "", definition={'type': 'integer'}, rule='type')
    return data

validate = validate_https___embed_grader_invalid_schemas_report_schema_json
