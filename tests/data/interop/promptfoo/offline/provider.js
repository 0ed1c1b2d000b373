// An offline promptfoo provider: replies `config.reply` followed by the prompt, and
// returns an error instead when the test's `topic` var is `config.errorOn`.
class FixedProvider {
  constructor(options) {
    this.providerId = options.id || 'fixed';
    this.config = options.config || {};
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    const topic = context && context.vars ? context.vars.topic : undefined;
    if (this.config.errorOn && topic === this.config.errorOn) {
      return { error: `fixed provider refuses ${topic}` };
    }
    return { output: `${this.config.reply} ${prompt}` };
  }
}

module.exports = FixedProvider;
