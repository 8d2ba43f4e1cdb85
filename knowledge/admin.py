from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from agents.admin_base import ScopedAgentFilter, TenantScopedAdmin
from core.errors import AppError
from agents.models import Agent
from knowledge.models import Document
from knowledge.services import document_create, document_remove, document_text_clean, document_text_from_file


class DocumentUploadForm(forms.ModelForm):
    """Upload a file (or paste text); the service chunks and indexes it."""

    upload = forms.FileField(label=_("文件"), required=False, help_text=_(".txt、.md、.pdf 或 .docx"))

    class Meta:
        model = Document
        fields = ["agent", "title", "text"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("title", "text"):
            if name in self.fields:  # the change page shows a document read-only: no fields at all
                self.fields[name].required = False
        self.prepared = None

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("upload")
        try:
            if upload:
                text, source, default_title = document_text_from_file(filename=upload.name, data=upload.read())
            else:
                text, source, default_title = document_text_clean(cleaned.get("text")), "text", ""
        except AppError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from exc  # in the admin's language
        self.prepared = {"text": text, "source": source, "title": cleaned.get("title") or default_title}
        return cleaned


@admin.register(Document)
class DocumentAdmin(TenantScopedAdmin):
    school_admin_can_add = True
    form = DocumentUploadForm
    list_display = ("title", "agent", "source", "chunk_count", "token_count", "created_by", "created_at")
    list_filter = (ScopedAgentFilter,)
    list_select_related = ("agent", "created_by")
    search_fields = ("title", "id")
    ordering = ("-created_at",)
    readonly_fields = ("id", "source", "chunk_count", "token_count", "created_by", "created_at")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["agent", "title", "upload", "text"]
        return ["id", "agent", "title", "source", "chunk_count", "token_count", "created_by", "created_at", "text"]

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj) if obj is not None else self.readonly_fields

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "agent" and not request.user.is_superuser:
            kwargs["queryset"] = Agent.objects.filter(tenant_id=request.user.tenant_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if change:
            return  # documents are replaced, not edited: chunks and index follow the text
        agent = form.cleaned_data["agent"]
        document = document_create(tenant=agent.tenant, agent=agent, created_by=request.user, **form.prepared)
        obj.__dict__.update(document.__dict__)

    def delete_model(self, request, obj):
        document_remove(document=obj)

    def delete_queryset(self, request, queryset):
        for document in queryset:
            document_remove(document=document)
